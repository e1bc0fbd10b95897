-- issue 18: SL2VL and VLArbitration Sets per sweep (QoS tables written
-- where they differ), beside lft_blocks and port_sets.
ALTER TABLE sm_sweeps ADD COLUMN qos_sets INTEGER NOT NULL DEFAULT 0;

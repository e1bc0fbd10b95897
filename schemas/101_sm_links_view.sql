-- Links are the ports that have a peer, each link once: sm_ports already
-- holds both ends, so a table of its own only doubled the writes of every
-- heavy sweep.  GUIDs are fixed-width lower-case hex, so text order is
-- numeric order and "the lower end first" is a plain comparison.
DROP TABLE sm_links;

CREATE VIEW sm_links AS
SELECT a.node_guid AS a_guid, a.num AS a_port, a.peer_guid AS b_guid, a.peer_port AS b_port,
       (a.degraded OR b.degraded) AS degraded
FROM sm_ports a
JOIN sm_ports b ON b.node_guid = a.peer_guid AND b.num = a.peer_port
WHERE a.node_guid < a.peer_guid OR (a.node_guid = a.peer_guid AND a.num < a.peer_port);

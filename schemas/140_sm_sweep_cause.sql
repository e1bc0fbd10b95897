-- issue 39: what began a sweep, so that a test (and an operator) can tell a
-- sweep a trap or a request brought from the periodic one without a clock:
-- 'periodic' (the sweep_interval timer) or 'event' (a trap, a change seen,
-- a request, a sweep asked again at once).  Rows from before: 'event'.
ALTER TABLE sm_sweeps ADD COLUMN cause TEXT NOT NULL DEFAULT 'event'
    CHECK (cause IN ('periodic', 'event'));

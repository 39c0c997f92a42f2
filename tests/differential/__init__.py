"""Differential harness: the same generated request sequences sent to the real Designate 23.0.0
and to ours, answer by answer.

Why: the recorded corpus only holds the cases someone recorded, and a server tuned to pass it
can still differ from Designate everywhere else. Generating the requests (from a seed, so a
failure is reproducible) and asking the reference live finds the differences nobody recorded.

- ``model``      what a step and a sequence are (plain data, no I/O)
- ``generator``  seeded sequences until the count: the route sweep, then the scenarios
- ``builder``    names unique to the run, projects, context headers, steps of one sequence
- ``scenarios``  one story per resource (zones, recordsets, secondary zones, shares, transfers,
                 imports/exports, admin resources, record rules, every route of the OpenAPI)
- ``rdata``      generated record data of the 17 types, valid and near-valid
- ``runner``     sends a sequence to both servers step by step, mapping ids by position
- ``normalise``  removes what may honestly differ (ids, timestamps, propagation states)
- ``compare``    the differences between two normalised answers
- ``deviations`` the documented differences we keep on purpose (mirrored in the README)
- ``servers``    the reference (used if up, else started) and ours configured like it
"""

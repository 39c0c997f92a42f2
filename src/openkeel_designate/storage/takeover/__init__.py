"""Taking over a running Designate 23.0.0: its database migrated in place (issue 12).

``detect`` says what a database is; ``backup`` dumps it first; ``procedure.sync`` moves
Designate's tables aside, creates ours and ``copy`` fills them; ``undo`` writes our rows back
into Designate's tables (``downgrade-to-designate``) or drops them (``forget-designate``).
"""

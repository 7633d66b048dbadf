"""Fixes: the applier that orders, merges and applies the edits the rules build, checks the result
again, writes it atomically and shows it as a diff; and ``--add-noqa``.
"""

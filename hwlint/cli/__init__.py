"""The front ends a person types: ``hwlint`` (check, fix, report, rule, taxonomy, baseline) and ``hwselect``.

They translate arguments into calls of the layers below and results into text; they decide nothing.
"""

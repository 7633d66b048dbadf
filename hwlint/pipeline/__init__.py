"""The pipeline every command runs: discovery and configuration, the per-file phase on a pool of
processes with a content-addressed cache, then the cross-file phase.
"""

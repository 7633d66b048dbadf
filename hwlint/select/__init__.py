"""Selection: which tests each CI runner executes, replayed statically as the runtime collects them;
the ``-k`` expressions and the shards that carry it to pytest.
"""

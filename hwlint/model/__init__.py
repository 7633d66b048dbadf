"""The model of one file: plain, cacheable records of its classes, declarations, calls and imports,
built once with CPython's parser and read by every consumer.
"""

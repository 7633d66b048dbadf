"""Reading a taxonomy: the file, its YAML, and the validation of its values against the schema.

A taxonomy is untrusted input: it is composed with PyYAML's safe machinery (no tags beyond the plain
YAML types), and every problem is a :class:`~hwlint.taxonomy.fields.TaxonomyError` naming the file,
line and key. The YAML's plain values, with the line of every key path, are remembered (signed,
by the text's hash: :func:`hwlint.keystore.remember`), so a command that loads the same text
again validates them without importing PyYAML.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..keystore import remember as remember_value
from ..keystore import remembered
from ..roots import NONE_GIVEN, Trees
from ..words import EXCERPT_CHARS, clipped, excerpt
from .fields import TaxonomyError, read_fields
from .schema import Taxonomy

if TYPE_CHECKING:
    import yaml

MAX_TAXONOMY_BYTES = 1 << 20
# Deepest nesting of mappings and lists; the schema itself needs 4 levels.
MAX_TAXONOMY_DEPTH = 32
_PLAIN_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}


def default_taxonomy_path() -> Path:
    """The bundled default: inside the installed package, else the repository's top-level file."""
    package = Path(__file__).resolve().parent.parent
    bundled = package / "taxonomy.yaml"  # a wheel's (importlib.resources says the same, slower)
    return bundled if bundled.is_file() else package.parent / "taxonomy.yaml"


def load_taxonomy(
    path: str | os.PathLike[str] | None = None, remember: bool = True, trees: Trees = NONE_GIVEN
) -> Taxonomy:
    """Load and validate a taxonomy; ``None`` means the bundled default. Raises TaxonomyError.

    With *remember*, the YAML's values are kept (signed, by the text's hash) beside the cache's
    key, and the next command that loads the same text validates them without importing PyYAML
    (a sixth of a warm run's start-up); not under a key inside the run's *trees*
    (:func:`hwlint.keystore.secret`)."""
    p = Path(path) if path is not None else default_taxonomy_path()
    try:
        st = p.stat()
    except OSError as e:
        raise TaxonomyError(str(p), None, "", f"cannot read taxonomy: {e.strerror or e}") from None
    return _load_cached(str(p), st.st_mtime_ns, st.st_size, remember, trees)


@functools.lru_cache(maxsize=16)
def _load_cached(path: str, _mtime: int, _size: int, remember: bool, trees: Trees) -> Taxonomy:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TAXONOMY_BYTES + 1)
    except OSError as e:
        raise TaxonomyError(path, None, "", f"cannot read taxonomy: {e.strerror or e}") from None
    if len(data) > MAX_TAXONOMY_BYTES:
        raise TaxonomyError(path, None, "", f"taxonomy is larger than {MAX_TAXONOMY_BYTES} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise TaxonomyError(path, None, "", f"taxonomy is not UTF-8 ({e.reason})") from None
    return parse_taxonomy(text, path, remember, trees)


#: Bumped when what :class:`_Reader` makes of a text changes: older remembered parses are then unread.
_REMEMBERED_FORMAT = 1


def parse_taxonomy(
    text: str, path: str = "<taxonomy>", remember: bool = False, trees: Trees = NONE_GIVEN
) -> Taxonomy:
    """Validate taxonomy *text* (YAML) and build a :class:`Taxonomy` (*remember*, *trees*: see
    :func:`load_taxonomy`)."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    name = f"taxonomy-{_REMEMBERED_FORMAT}-{digest[:40]}"
    if remember:
        found = remembered(name, trees)
        if _parsed_shape(found):
            return _Validator(path, found["lines"], found["raw"]).build(digest)
    lines, raw = _parse_yaml(text, path)  # YAML's plain types: JSON keeps them as they are
    taxonomy = _Validator(path, lines, raw).build(digest)  # (it reads *raw*, never changes it)
    if remember:
        remember_value(name, {"lines": lines, "raw": raw}, trees)
    return taxonomy


def _parsed_shape(found: Any) -> bool:
    """Whether a remembered parse has the shape :func:`parse_taxonomy` keeps."""
    return (
        type(found) is dict
        and type(found.get("raw")) is dict
        and type(found.get("lines")) is dict
        and all(type(k) is str and type(v) is int for k, v in found["lines"].items())
    )


def _parse_yaml(text: str, path: str) -> tuple[dict[str, int], dict[str, Any]]:
    """The plain values of taxonomy *text* and the line of each key path."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        _check_structure(text, path, loader)
        # libyaml's loader when PyYAML has it: every command loads the taxonomy, and the pure-Python
        # composer costs about as much as the rest of a warm run
        node = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        problem = clipped(str(e.problem or e.context))  # PyYAML's words hold the file's tokens
        raise TaxonomyError(path, line, "", f"malformed YAML: {problem}") from None
    except yaml.YAMLError as e:
        raise TaxonomyError(path, None, "", f"malformed YAML: {clipped(str(e))}") from None
    if node is None:
        raise TaxonomyError(path, None, "", "taxonomy is empty")
    reader = _Reader(path)
    raw = reader.value(node, "")
    if not isinstance(raw, dict):
        raise TaxonomyError(path, node.start_mark.line + 1, "", "top level must be a mapping")
    return reader.lines, raw


def _check_structure(text: str, path: str, loader: type) -> None:
    """Refuse aliases and deep nesting before anything is built from the YAML.

    A taxonomy has no use for aliases, and they are how a few hundred bytes expand to gigabytes
    ("billion laughs") or to a cycle (a recursive alias); nesting is bounded so that building the
    values can never exhaust the stack. Both are checked on the event stream, in constant memory.
    """
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent):
            line = event.start_mark.line + 1
            alias = clipped("*" + event.anchor, EXCERPT_CHARS)
            raise TaxonomyError(path, line, "", f"YAML aliases are not allowed in a taxonomy ({alias})")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_TAXONOMY_DEPTH:
                line = event.start_mark.line + 1
                raise TaxonomyError(path, line, "", f"nested deeper than {MAX_TAXONOMY_DEPTH} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class _Reader:
    """Turns a composed YAML node tree into plain values, remembering the line of every key path."""

    def __init__(self, path: str):
        import yaml

        self.path = path
        self.lines: dict[str, int] = {}
        self._constructor = yaml.constructor.SafeConstructor()
        self._mapping, self._sequence = yaml.MappingNode, yaml.SequenceNode

    def value(self, node: yaml.Node, key: str) -> Any:
        line = node.start_mark.line + 1
        self.lines.setdefault(key, line)
        if node.tag not in _PLAIN_TAGS:
            raise TaxonomyError(self.path, line, key or "<top>", f"unsupported YAML tag {excerpt(node.tag)}")
        if isinstance(node, self._mapping):
            out: dict[str, Any] = {}
            for k_node, v_node in node.value:
                k = self._constructor.construct_object(k_node) if k_node.tag in _PLAIN_TAGS else None
                kl = k_node.start_mark.line + 1
                if not isinstance(k, str):
                    raise TaxonomyError(self.path, kl, key or "<top>", "mapping keys must be strings")
                sub = f"{key}.{k}" if key else k
                if k in out:
                    raise TaxonomyError(self.path, kl, sub, "duplicate key")
                self.lines[sub] = kl
                out[k] = self.value(v_node, sub)
            return out
        if isinstance(node, self._sequence):
            return [self.value(item, f"{key}[{i}]") for i, item in enumerate(node.value)]
        return self._constructor.construct_object(node)


class _Validator:
    """Reads a taxonomy's plain values into a :class:`Taxonomy`, key by key as the schema declares
    them (the :class:`~hwlint.taxonomy.fields.Context` of its kinds)."""

    def __init__(self, path: str, lines: dict[str, int], raw: dict[str, Any]):
        self.path, self.lines, self.raw = path, lines, raw
        self.top: dict[str, Any] = {}  # the taxonomy's fields read so far

    def error(self, key: str, message: str) -> TaxonomyError:
        line = self.lines.get(key)
        probe = key
        while line is None and probe:
            probe = probe.rpartition(".")[0]
            line = self.lines.get(probe)
        return TaxonomyError(self.path, line, key, message)

    def section(self, name: str) -> Any:
        return self.top[name]

    def build(self, digest: str) -> Taxonomy:
        self.top = {}
        values = read_fields(self, Taxonomy, self.raw, "", into=self.top)
        return Taxonomy(path=self.path, digest=digest, raw=self.raw, **values)

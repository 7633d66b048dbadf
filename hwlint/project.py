"""The project model: what one test module borrows from another, resolved over cached per-file facts.

The file model (:mod:`hwlint.model`) sees one file. pytest and the torch runtime see a process in
which test modules import each other: ``from quantization.core.test_quantized_op import
TestQuantizedOps`` makes pytest collect ``test_quantization.py::TestQuantizedOps`` as well; a class
takes its tests and its ``hw_classification`` from a mixin defined in another test module; a module
instantiates a generic class it imported. This module resolves those names across the scanned files
and implements the model's :class:`~hwlint.model.Resolver` hook with the result.

Module names resolve as they do under pytest for PyTorch's tree (``rootdir``-relative imports with
the ``prepend`` import mode): a relative import against the file's package; an absolute one against
the test file's own directory, the first ancestor directory that is not a package (what pytest puts
on ``sys.path``), the current directory (the test root, where ``python -m pytest`` runs) and the
``roots`` of ``[tool.hwlint]``. Only scanned files are known: a module outside them (torch's own
testing helpers) stays unresolved, and what hangs on it is reported, not guessed.

The second phase is cheap: it reads the per-file models the first phase cached and parses nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from .collection import trusted_module
from .model import (
    OVERRIDE_INHERITED,
    OVERRIDE_SUBCLASSES,
    ClassInfo,
    FileModel,
    ImportStatement,
    Instantiation,
    LocalResolver,
)
from .model.source import read_source
from .roots import NONE_GIVEN, Trees
from .taxonomy import Taxonomy

_MAX_DEPTH = 8  # re-exports followed (a module re-exporting an imported class)

#: How a lookup of a helper module (:meth:`Project.helper_file`) is kept among the project's
#: lookups (:meth:`Project.resolutions`), beside those of test modules: no module name holds ``:``.
HELPER = "helper:"


def _joined(module: str, name: str) -> str:
    """``pkg.mod`` of ``from pkg import mod`` (``.mod`` of ``from . import mod``)."""
    return module + ("" if module.endswith(".") or not module else ".") + name


@dataclass(frozen=True)
class Links:
    """What the cross-file phase needs of one file, small enough to cache for every file.

    ``external``: names used as a base or instantiated that no class of the file binds where they
    are used; ``unbound``: names the module deletes or instantiates (an imported class so named is
    not collected there); ``classes``: (name, line) of every class definition."""

    path: str
    imports: tuple[ImportStatement, ...]
    classes: tuple[tuple[str, int], ...]
    external: tuple[str, ...]
    unbound: tuple[str, ...]
    # names a class body binds its values from (``stamp = Stamp()``): see ClassInfo.values
    values: tuple[str, ...] = ()

    def still_bound(self, name: str, statement: ImportStatement) -> bool:
        """True when *name*, imported by *statement*, is still bound when the module's import ends."""
        if name in self.unbound:
            return False
        return not any(n == name and line > statement.site.line for n, line in self.classes)


def links_of(model: FileModel) -> Links:
    """The :class:`Links` of *model* (imports of torch's own modules left out: never test modules)."""
    imports = tuple(
        imp
        for imp in model.imports
        if not model.under_main_guard(imp.site.line)
        and not (imp.module or imp.names[0][0]).startswith("torch")
    )
    external = []
    for cls in model.classes:
        for base in cls.bases:
            found = model.class_named(base.partition(".")[0], cls.site.line) if base else None
            if base and (found is None or found is cls):
                external.append(base)
    for call in model.instantiations:
        if call.class_name and model.class_named(call.class_name, call.site.line) is None:
            external.append(call.class_name)
    unbound = {d.name for d in model.deletions} | {i.class_name for i in model.instantiations if i.class_name}
    imported = {(alias or name).partition(".")[0] for imp in imports for name, alias in imp.names}
    values = [v for c in model.classes for v in c.values if v.partition(".")[0] in imported]
    return Links(
        model.path,
        imports,
        tuple((c.name, c.site.line) for c in model.classes),
        tuple(dict.fromkeys(external)),
        tuple(sorted(unbound)),
        tuple(dict.fromkeys(values)),
    )


@dataclass(frozen=True)
class ImportedClass:
    """A class another scanned module defines, bound in *importer* by a from-import."""

    binding: str  # the name it has in the importing module
    name: str  # its name in the defining module
    path: str  # the defining module's file
    statement: ImportStatement


class Project:
    """Per-file models of every scanned file, and name resolution between them."""

    def __init__(
        self,
        models: Iterable[FileModel],
        roots: Sequence[str] = (),
        cwd: str | None = None,
        loader: Callable[[str], FileModel | None] | None = None,
        paths: Iterable[str] | Mapping[str, str] = (),
        follow: Callable[[str], bool] | None = None,
        helper_loader: Callable[[str], FileModel | None] | None = None,
    ):
        """*paths*: the scanned files (modules an import may name), or a mapping from their absolute
        paths to the paths as given; *models*: those loaded up front. *loader* (path -> model), when
        given, loads a module the project needs but lacks: a scanned file, or any file on disk when
        no *paths* are given (``hwselect explain`` looks at one file and loads what it imports on
        demand). *follow(path)*: whether an import may be followed into a file on disk that is not
        scanned (those a check would scan: a file's findings then do not depend on the others given).
        *helper_loader* (path -> model): loads a module of the checkout that is not a test module,
        read only for what it may do to the classes deriving from its classes (:meth:`helper_doubts`)."""
        self.loader = loader
        self.helper_loader = helper_loader
        self.helper_models: dict[str, FileModel | None] = {}
        self.follow = follow
        self.models = {os.path.abspath(m.path): m for m in models}
        self.given = dict(paths) if isinstance(paths, Mapping) else {os.path.abspath(p): p for p in paths}
        self.paths = set(self.given) | set(self.models)
        self.anywhere = not paths
        self.stems = {os.path.splitext(os.path.basename(p))[0] for p in self.paths}
        self.roots = [os.path.abspath(r) for r in (cwd or os.getcwd(), *roots)]
        self._owner: dict[int, FileModel] = {}
        for m in self.models.values():
            for c in m.classes:
                self._owner[id(c)] = m
        self._modules: dict[tuple[str, str], str | None] = {}

    def owner(self, cls: ClassInfo, default: FileModel) -> FileModel:
        """The model of the file defining *cls*."""
        return self._owner.get(id(cls), default)

    # -- modules ---------------------------------------------------------------------------
    def module_file(self, importer: str, module: str) -> str | None:
        """The scanned file *module* names when imported from *importer*, or None (a *module*
        spelled with :data:`HELPER` before it: :meth:`helper_file`'s lookup)."""
        key = (os.path.dirname(importer), module)
        if key not in self._modules:
            if module.startswith(HELPER):
                self._modules[key] = self._find_helper(importer, module[len(HELPER) :])
            else:
                self._modules[key] = self._find_module(importer, module)
        return self._modules[key]

    def helper_file(self, importer: str, module: str) -> str | None:
        """The file of the checkout *module* names when imported from *importer*, scanned or not
        (a helper module beside the tests, ``common_helpers.py``), found as :meth:`module_file`
        finds a test module; None for torch's, pytest's and the standard library's modules."""
        return self.module_file(importer, HELPER + module)

    def _find_helper(self, importer: str, module: str) -> str | None:
        if trusted_module(module.lstrip(".")) and not module.startswith("."):
            return None
        for candidate in self._candidates(importer, module):
            if os.path.isfile(candidate):
                return candidate
        return None

    def _candidates(self, importer: str, module: str):
        """The files *module*, imported from *importer*, may be, in the order Python looks."""
        level = len(module) - len(module.lstrip("."))
        parts = [p for p in module[level:].split(".") if p]
        here = os.path.dirname(os.path.abspath(importer))
        if level:
            base = here
            for _ in range(level - 1):
                base = os.path.dirname(base)
            bases = [base]
        else:
            bases = list(dict.fromkeys([here, _first_non_package(here), *self.roots]))
        for base in bases:
            stem = os.path.join(base, *parts)
            yield from (stem + ".py", os.path.join(stem, "__init__.py"))

    def resolutions(self) -> list[tuple[str, str, str | None]]:
        """Every module lookup made so far: (directory of the importer, module, the file found or
        None). A result that used the project depends on exactly these (a file added that shadows
        one, another current directory, other roots change some)."""
        return [(d, m, found) for (d, m), found in self._modules.items()]

    def resolves_as(self, recorded: Iterable[tuple[str, str, str | None]]) -> bool:
        """Whether each of the *recorded* lookups (:meth:`resolutions`) finds the same file here."""
        return all(self.module_file(os.path.join(d, "__init__.py"), m) == found for d, m, found in recorded)

    def _find_module(self, importer: str, module: str) -> str | None:
        parts = [p for p in module.lstrip(".").split(".") if p]
        name = parts[-1] if parts else "__init__"
        if not self.anywhere and name not in self.stems and not (self.follow and self.follow(name + ".py")):
            return None  # no file it may name has that name: most imports end here, without a stat
        for candidate in self._candidates(importer, module):
            if candidate in self.paths:
                return candidate
            may = (self.anywhere and self.loader is not None) or (self.follow and self.follow(candidate))
            if may and os.path.isfile(candidate):
                self.paths.add(candidate)
                return candidate
        return None

    def add(self, model: FileModel) -> None:
        """Make *model* the project's model of its file."""
        path = os.path.abspath(model.path)
        self.models[path] = model
        self.paths.add(path)
        self.stems.add(os.path.splitext(os.path.basename(path))[0])
        for c in model.classes:
            self._owner[id(c)] = model

    def model_of(self, path: str) -> FileModel | None:
        """The model of the scanned file *path*, loaded on first use when the project has a loader."""
        found = self.models.get(path)
        if found is None and self.loader is not None and path in self.paths:
            found = self.loader(path)
            if found is not None:
                self.add(found)
        return found

    # -- names -----------------------------------------------------------------------------
    def resolve_name(
        self, model: FileModel, name: str, line: int = 1 << 30, depth: int = 0
    ) -> ClassInfo | None:
        """The class *name* (dotted or not) is bound to in *model* at *line*, through imports."""
        if not name or depth > _MAX_DEPTH:
            return None
        local = model.class_named(name, line) if "." not in name else None
        if local is not None and local.site.line < line:
            return local
        head, _, rest = name.partition(".")
        for imp in reversed(model.imports):
            if imp.site.line >= line:
                continue
            for imported, alias in imp.names:
                if imp.module is not None:  # from M import imported [as alias]
                    if (alias or imported) != head or imported == "*":
                        continue
                    if not rest:
                        return self._class_in(model, imp.module, imported, depth)
                    sub = imp.module + ("" if imp.module.endswith(".") else ".") + imported
                    return self._class_in(model, sub, rest, depth)
                # import a.b [as m]
                if alias == head and rest:
                    return self._class_in(model, imported, rest, depth)
                if not alias and rest and name.startswith(imported + "."):
                    return self._class_in(model, imported, name[len(imported) + 1 :], depth)
        return None

    def _class_in(self, model: FileModel, module: str, name: str, depth: int) -> ClassInfo | None:
        path = self.module_file(model.path, module)
        target = self.model_of(path) if path is not None and "." not in name else None
        if target is None:
            return None
        found = target.class_named(name)
        if found is not None:
            return found
        return self.resolve_name(target, name, depth=depth + 1)  # re-exported

    def imported_classes(
        self, links: Links, classes_of: Callable[[str], Sequence[str]]
    ) -> list[ImportedClass]:
        """Classes of other scanned modules that a file binds by a from-import (star imports too)
        and keeps bound; *classes_of(path)* names the classes a scanned file defines."""
        out = []
        here = os.path.abspath(links.path)
        for imp in links.imports:
            if imp.module is None:
                continue
            path = self.module_file(links.path, imp.module)
            if path is None or path == here:
                continue
            defined = classes_of(path)
            for imported, alias in imp.names:
                if imported == "*":
                    out += [ImportedClass(n, n, path, imp) for n in defined if not n.startswith("_")]
                elif imported in defined and links.still_bound(alias or imported, imp):
                    out.append(ImportedClass(alias or imported, imported, path, imp))
        return out

    def unresolved_imports(self, links: Links, prefix: str = "Test") -> list[tuple[ImportStatement, str]]:
        """From-imports of ``Test*`` names, still bound at the end, from modules that are not scanned."""
        out = []
        for imp in links.imports:
            if imp.module is None:
                continue
            names = [n for n, a in imp.names if n.startswith(prefix) and links.still_bound(a or n, imp)]
            if names and self.module_file(links.path, imp.module) is None:
                out += [(imp, n) for n in names]
        return out

    def providers(self, links: Links) -> list[str]:
        """Scanned files that a base or an instantiated class of the file may come from."""
        out = []
        heads = {name.partition(".")[0] for name in links.external}
        for imp in links.imports:
            for imported, alias in imp.names:
                if (alias or imported).partition(".")[0] not in heads:
                    continue
                module = imp.module if imp.module is not None else imported
                for m in (module, f"{module}.{imported}" if imp.module is not None else None):
                    path = self.module_file(links.path, m) if m else None
                    if path is not None and path != os.path.abspath(links.path):
                        out.append(path)
        return list(dict.fromkeys(out))

    def helpers(self, links: Links) -> list[str]:
        """Modules of the checkout (helpers beside the tests; a test module too, which
        :meth:`providers` may also name) from which a base of the file, or a value a class body
        binds, is imported: what they define may run code on the file's classes
        (:meth:`helper_doubts`)."""
        out = []
        heads = {name.partition(".")[0] for name in (*links.external, *links.values)}
        for imp in links.imports:
            for imported, alias in imp.names:
                if imported == "*" or (alias or imported).partition(".")[0] not in heads:
                    continue
                module = imp.module if imp.module is not None else imported
                path = self.helper_file(links.path, module)
                if path is None and imp.module is not None:
                    path = self.helper_file(links.path, _joined(module, imported))  # from pkg import mod
                if path is not None and path != os.path.abspath(links.path):
                    out.append(path)
        return list(dict.fromkeys(out))

    def helper_model(self, path: str) -> FileModel | None:
        """The model of the helper module *path*, loaded once (None: none could be built)."""
        if path not in self.helper_models:
            found = self.models.get(path)
            if found is None and self.helper_loader is not None:
                found = self.helper_loader(path)
            self.helper_models[path] = found if found is not None and found.error is None else None
        return self.helper_models[path]

    def helper_class(
        self, model: FileModel, name: str, line: int = 1 << 30, depth: int = 0
    ) -> tuple[FileModel, ClassInfo | None, str] | None:
        """What *name* (dotted or not) is bound to in *model* at *line* when a helper module of the
        checkout binds it: (the helper's model, its class of that name or None when the name is no
        class there, the module as imported); None when no import binds it to a helper."""
        if not name or depth > _MAX_DEPTH:
            return None
        head, _, rest = name.partition(".")
        for imp in reversed(model.imports):
            if imp.site.line >= line:
                continue
            for imported, alias in imp.names:
                if imp.module is not None:
                    if (alias or imported) != head or imported == "*":
                        continue
                    if not rest:
                        return self._helper_in(model, imp.module, imported, depth)
                    return self._helper_in(model, _joined(imp.module, imported), rest, depth)
                if alias == head and rest:
                    return self._helper_in(model, imported, rest, depth)
                if not alias and rest and name.startswith(imported + "."):
                    return self._helper_in(model, imported, name[len(imported) + 1 :], depth)
        return None

    def _helper_in(
        self, model: FileModel, module: str, name: str, depth: int
    ) -> tuple[FileModel, ClassInfo | None, str] | None:
        path = self.helper_file(model.path, module) if "." not in name else None
        target = self.helper_model(path) if path is not None else None
        if target is None:
            return None
        found = target.class_named(name)
        if found is not None:
            return target, found, module
        return self.helper_class(target, name, depth=depth + 1) or (target, None, module)  # re-exported

    def helper_doubts(self, model: FileModel, cls: ClassInfo, base: str) -> list[str]:
        """Why a class deriving from *base* (a base of *cls*, of *model*, imported from a helper
        module) may not keep the declaration its body makes: ``__init_subclass__`` or a metaclass
        on the helper's class or on one of its own bases (in that helper or in another); each in
        words with the helper's line and module."""
        found = self.helper_class(model, base, cls.site.line)
        if found is None or found[1] is None:
            return []
        out: list[str] = []
        walk = [(found[0], found[1], found[2])]
        seen: set[int] = set()
        while walk and len(seen) <= 64:
            helper, c, module = walk.pop()
            if id(c) in seen:
                continue
            seen.add(id(c))
            for o in c.overrides:
                if o.scope in (OVERRIDE_SUBCLASSES, OVERRIDE_INHERITED):
                    where = f"line {o.line} of `{module}`"
                    out.append(f"{o.what} of `{c.name}` ({where}, a helper it derives from)")
            for b in c.bases:
                local = LocalResolver().resolve_base(helper, c, b)
                if local is not None:
                    walk.append((helper, local, module))
                    continue
                further = self.helper_class(helper, b, c.site.line)
                if further is not None and further[1] is not None:
                    walk.append(further)  # type: ignore[arg-type]
        return out

    def descriptor_doubts(self, model: FileModel, cls: ClassInfo, value: str) -> list[str]:
        """Why the value *value* (a name a body of *cls* binds a value from) may rewrite the class
        when its body ends: it comes from a helper module whose class, or any class when the name
        is no class (an instance), defines ``__set_name__``."""
        found = self.helper_class(model, value, cls.site.line)
        if found is None:
            return []
        helper, c, module = found
        holders = [c] if c is not None else list(helper.classes)
        for h in holders:
            if any(m.name == "__set_name__" for m in h.methods):
                where = f"line {h.site.line} of `{module}`"
                return [f"`{value}`, whose class `{h.name}` ({where}) has a descriptor's `__set_name__`"]
        return []

    def resolver(self) -> ProjectResolver:
        return ProjectResolver(self)

    def foreign_instantiations(self, model: FileModel) -> list[tuple[ClassInfo, Instantiation]]:
        """Instantiation calls of *model* whose class another scanned module defines, with that class."""
        out = []
        for call in model.instantiations:
            if not call.class_name or model.class_named(call.class_name, call.site.line) is not None:
                continue
            found = self.resolve_name(model, call.class_name, call.site.line)
            if found is not None and self.owner(found, model) is not model:
                out.append((found, call))
        return out


class ProjectResolver:
    """:class:`~hwlint.model.Resolver` over a :class:`Project`: a base resolves in the file that
    defines the class, then through that file's imports; a class another scanned module
    instantiates (``instantiate_device_type_tests(Imported, globals())``) knows those calls."""

    def __init__(self, project: Project):
        self.project = project
        self._local = LocalResolver()
        # (defining file, class name) -> [(instantiating file, call)]: by name, not identity, so a
        # model built again from fixed text still finds its calls
        self._instantiated: dict[tuple[str, str], list[tuple[str, Instantiation]]] = {}

    def note_instantiations(self, model: FileModel) -> list[str]:
        """Record the calls of *model* that instantiate a class of another scanned file; returns
        those files (their findings now depend on *model*)."""
        out = []
        for cls, call in self.project.foreign_instantiations(model):
            owner = os.path.abspath(self.project.owner(cls, model).path)
            self._instantiated.setdefault((owner, cls.name), []).append((model.path, call))
            out.append(owner)
        return list(dict.fromkeys(out))

    def instantiated_from(self, model: FileModel, cls: ClassInfo) -> list[tuple[str, Instantiation]]:
        """(file, call) of every call in another scanned module that instantiates *cls*."""
        owner = self.project.owner(cls, model)
        return self._instantiated.get((os.path.abspath(owner.path), cls.name), [])

    def resolve_base(self, model: FileModel, cls: ClassInfo, base: str) -> ClassInfo | None:
        owner = self.project.owner(cls, model)
        found = self._local.resolve_base(owner, cls, base)
        if found is not None:
            return found
        found = self.project.resolve_name(owner, base, cls.site.line)
        return found if found is not cls else None

    def resolve_name(self, model: FileModel, name: str, line: int) -> ClassInfo | None:
        return self.project.resolve_name(model, name, line)

    def imported_instantiations(self, model: FileModel) -> list[tuple[ClassInfo, Instantiation]]:
        return self.project.foreign_instantiations(model)

    def outside_doubts(self, model: FileModel, chain: Sequence[ClassInfo]) -> list[str]:
        """What helper modules of the checkout may do to the classes of *chain* (an MRO, its
        class first) that hwlint does not model: a base from a helper with ``__init_subclass__``
        or a metaclass, a value from a helper whose class has ``__set_name__``."""
        out: list[str] = []
        for c in chain:
            owner = self.project.owner(c, model)
            for base in c.bases:
                if base and self.resolve_base(model, c, base) is None:
                    out += self.project.helper_doubts(owner, c, base)
            for value in c.values:
                out += self.project.descriptor_doubts(owner, c, value)
        return out


#: What makes a directory a project root: run in one or below one, the current directory's test
#: files are read for calls that instantiate another file's classes
PROJECT_MARKERS = (".git", "pyproject.toml", "hwlint.toml", ".hwlint.toml", "setup.cfg", "tox.ini", ".flake8")


_AS = re.compile(rb"as(?=(\s+)[A-Za-z_])")
_SPACE_BYTES = frozenset(b" \t\n\r\f\v")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class Instantiators:
    """Which files of the project may instantiate a class defined in another file.

    The project is the current directory's check scope (the files ``hwlint check`` with no path
    would check), whatever files a front end was given: a finding that counts an
    ``instantiate_device_type_tests(Imported, globals())`` of another module (HWC102, the inference)
    is then the same from ``hwlint check test/``, ``hwlint check FILE``, flake8 and pre-commit.
    The files are read once, lazily (those given are not read), and only those naming an
    instantiation function are kept: a file is a candidate for a class when it passes the class's
    name (or names it ``as`` an alias) to such a call and from-imports from the module defining the
    class (the models, built by the caller, say whether a call resolves to that class). The one
    limit of that filter: a class re-exported by a second test module and instantiated from a third
    is counted only where the third is checked too (its text names the second module, not the
    class's own)."""

    def __init__(
        self,
        files: Callable[[], Iterable[str]],
        functions: Sequence[str],
        max_bytes: int,
        first: str = "",
    ):
        self._files = files
        self._functions = tuple(f.encode() for f in functions)
        self._max_bytes = max_bytes
        self._listed: dict[str, str] | None = None  # absolute path -> path, in the order listed
        # absolute path -> (names passed to a call, the modules it from-imports), or None for a
        # file that names no instantiation function
        self._texts: dict[str, tuple[frozenset[bytes], _Imports] | None] = {}
        # the name a call passes its class as: the first argument, or the keyword *first*
        calls = b"|".join(re.escape(f) for f in self._functions) or b"(?!)"
        self._passed = re.compile(rb"(?:" + calls + rb")\s*\(\s*(?:\w+\s*=\s*)?([A-Za-z_]\w*)")
        self._first = first.encode()
        self._keyword = re.compile(re.escape(self._first) + rb"\s*=\s*([A-Za-z_]\w*)") if first else None

    def _files_listed(self) -> dict[str, str]:
        if self._listed is None:
            self._listed = {os.path.abspath(path): path for path in self._files()}
        return self._listed

    def _text(self, absolute: str) -> tuple[frozenset[bytes], _Imports] | None:
        """What the filter needs of one file, read on first use (a file that a run was given is
        never read here: it is no candidate for its own classes)."""
        if absolute in self._texts:
            return self._texts[absolute]
        found = None
        try:
            with open(absolute, "rb") as f:
                data = f.read(self._max_bytes + 1)
        except OSError:
            data = b""  # the check of that file says why, when it is checked
        if len(data) <= self._max_bytes and any(name in data for name in self._functions):
            passed = {m.group(1) for m in self._passed.finditer(data)}
            if self._keyword is not None and self._first in data:
                passed.update(m.group(1) for m in self._keyword.finditer(data))
            # a class imported under another name is passed as that name
            passed.update(_aliased(data))
            found = (frozenset(passed), _Imports(data))
        self._texts[absolute] = found
        return found

    def prefetch(self, skip: set[str]) -> None:
        """List the project, and read what :meth:`candidates` reads of each of its files but those
        in *skip* (absolute paths), ahead of the call."""
        for absolute in self._files_listed():
            if absolute not in skip:
                self._text(absolute)

    def candidates(self, classes: Mapping[str, Iterable[str]]) -> list[str]:
        """The project's files, other than those of *classes* (path -> names of the classes it
        defines), that name an instantiation function, one of those files' module names (an
        import of the module names it) and one of its classes."""
        # a module's name (its file's stem) -> the class names of each file of that name
        wanted: dict[bytes, list[list[bytes]]] = {}
        for path, names in classes.items():
            found = [n.encode() for n in dict.fromkeys(names) if n]
            if found:
                wanted.setdefault(os.path.splitext(os.path.basename(path))[0].encode(), []).append(found)
        if not wanted:
            return []
        skip = {os.path.abspath(p) for p in classes}
        dotted = [stem for stem in wanted if b"." in stem]
        out = []
        for absolute, path in self._files_listed().items():
            found = None if absolute in skip else self._text(absolute)
            if found is not None:
                passed, imports = found
                if any(
                    any(n in passed for n in names)
                    for stem in imports.of(wanted, dotted)
                    for names in wanted[stem]
                ):
                    out.append(path)
        return out


def _aliased(data: bytes) -> list[bytes]:
    """The names *data* gives another name (``TestA`` of ``import TestA as T``): each identifier
    followed by ``as`` and an identifier, found from the letters ``as`` (a pattern that starts at a
    word's edge, or with a space, makes re try every position of the text: ten times slower)."""
    names = []
    taken = 0  # where the last match ended: matches do not overlap
    for m in _AS.finditer(data):
        end = m.start()
        if end == 0 or data[end - 1] not in _SPACE_BYTES:
            continue
        while end > 0 and data[end - 1] in _SPACE_BYTES:
            end -= 1
        start = end
        while start > 0 and data[start - 1] in _WORD_BYTES:
            start -= 1
        if start < end and start >= taken and not data[start : start + 1].isdigit():
            names.append(data[start:end])
            taken = m.end() + len(m.group(1)) + 1  # as far as the pattern before read
    return names


# `from` found by its letters (a leading \b would make re try every position of the text)
_FROM_IMPORT = re.compile(rb"from\s+([\w.]+)(?=\s+import\b)")


class _Imports:
    """The modules a file's text from-imports (``from pkg.test_a import``), to tell which file
    names it may import: a file ``test_a.py`` when its stem ends such a dotted name at a word's
    edge (``test_a``, ``sub.test_a``, ``.test_a``). One scan per file, where a pattern per
    class-defining file compiled 800 patterns per run on PyTorch's tree. What is kept is as large as
    the names, not as their tails: every tail of one dotted name 17 KB long took 51 MB."""

    __slots__ = ("lasts", "names")

    def __init__(self, data: bytes):
        self.names = frozenset(
            m.group(1) for m in _FROM_IMPORT.finditer(data) if not _word_before(data, m.start())
        )
        # a stem without a dot ends a name at a word's edge only as its last part
        self.lasts = frozenset(name.rpartition(b".")[2] for name in self.names) - {b""}

    def of(self, stems: Mapping[bytes, object], dotted: Sequence[bytes] = ()) -> list[bytes]:
        """The stems among *stems* that name a module this file imports; *dotted*: those of them
        that hold a dot (``test.extra`` of ``test.extra.py``), which only a whole name can end."""
        found = [last for last in self.lasts if last in stems]
        found += [stem for stem in dotted if any(_ends_at_edge(name, stem) for name in self.names)]
        return found


def _ends_at_edge(name: bytes, stem: bytes) -> bool:
    """Whether the dotted *name* ends with *stem* starting at a word's edge (a letter after a dot
    or at the start, or a dot after a letter)."""
    at = len(name) - len(stem)
    if at < 0 or not name.endswith(stem):
        return False
    dot = 46  # "."
    return name[0] != dot if at == 0 else (name[at - 1] == dot) != (name[at] == dot)


def _word_before(data: bytes, at: int) -> bool:
    return at > 0 and data[at - 1] in _WORD_BYTES


def project_instantiators(files: Callable[[], Iterable[str]], taxonomy: Taxonomy, max_bytes: int):
    """:class:`Instantiators` over *files* (the current directory's check scope, listed on first
    use), or None when neither the current directory nor an ancestor holds one of
    :data:`PROJECT_MARKERS` (a run from a home directory walks nothing)."""
    if not _in_a_project(os.getcwd()):
        return None
    first = taxonomy.positional[0] if taxonomy.positional else ""
    return Instantiators(files, taxonomy.instantiation_functions, max_bytes, first)


def _in_a_project(directory: str) -> bool:
    while True:
        if any(os.path.exists(os.path.join(directory, m)) for m in PROJECT_MARKERS):
            return True
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def on_demand(
    model: FileModel,
    taxonomy: Taxonomy,
    roots: Sequence[str] = (),
    accept: Callable[[str], bool] | None = None,
    trees: Trees = NONE_GIVEN,
) -> Project:
    """A project holding *model* that loads the modules it imports as they are needed (``hwselect
    explain`` and the flake8 plugin see one file). *accept(path)* says which files may be loaded
    (those ``hwlint check`` would scan); each is parsed once per process, read as the run's
    *trees* allow (:func:`~hwlint.model.source.read_source`)."""

    def load(path: str) -> FileModel | None:
        if accept is not None and not accept(path):
            return None
        return _load_once(path, taxonomy, trees)

    return Project([model], roots, loader=load, helper_loader=lambda path: _load_once(path, taxonomy, trees))


def around(
    model: FileModel,
    taxonomy: Taxonomy,
    roots: Sequence[str] = (),
    accept: Callable[[str], bool] | None = None,
    instantiators: Instantiators | None = None,
    trees: Trees = NONE_GIVEN,
) -> FileModel:
    """*model* resolving through an :func:`on_demand` project when a base or an instantiated
    class of it comes from a module it imports, or when one of *instantiators* (the project's
    files) instantiates a class of it; else *model* itself, as ``hwlint check`` leaves it.
    *trees*: the run's (:func:`on_demand`)."""
    project = on_demand(model, taxonomy, roots, accept, trees)
    resolver = project.resolver()
    noted = False
    if instantiators is not None and model.classes:
        for path in instantiators.candidates({model.path: [c.name for c in model.classes]}):
            other = _load_once(os.path.abspath(path), taxonomy, trees)
            if other is None or other.error is not None:
                continue
            project.add(model_at(other, path))
            noted = bool(resolver.note_instantiations(project.model_of(os.path.abspath(path)))) or noted
    links = links_of(model)
    if not noted and not project.providers(links) and not project.helpers(links):
        return model
    return with_resolver(model, resolver)


_loaded: dict[tuple[str, str, Trees], tuple[tuple[int, int], FileModel | None]] = {}


def _load_once(path: str, taxonomy: Taxonomy, trees: Trees) -> FileModel | None:
    """The model of *path*, kept for the process while the file's size and mtime stay the same
    (flake8 checks many files that import the same module)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key, stamp = (path, taxonomy.digest, trees), (st.st_mtime_ns, st.st_size)
    found = _loaded.get(key)
    if found is None or found[0] != stamp:
        from .model import build_model  # the builder: imported by the runs that build a model

        data = read_source(path, trees=trees)
        found = _loaded[key] = (stamp, None if isinstance(data, str) else build_model(data, path, taxonomy))
    return found[1]


def model_at(model: FileModel, path: str) -> FileModel:
    """A cached model under the path it is asked for now (the cache is keyed by absolute path)."""
    return model if model.path == path else replace(model, path=path)


def with_resolver(model: FileModel, resolver: ProjectResolver) -> FileModel:
    """*model* resolving through the project (the same class objects: the project still owns them)."""
    return replace(model, resolver=resolver)


def _first_non_package(directory: str) -> str:
    """The first of *directory* and its ancestors without an ``__init__.py`` (pytest's basedir)."""
    while os.path.exists(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory

"""The schema: one declaration per key drives the records, validation, `taxonomy show` and the docs."""

from __future__ import annotations

import dataclasses

import pytest

from hwlint.taxonomy import Taxonomy, TaxonomyError, effective_dict, load_taxonomy, parse_taxonomy
from hwlint.taxonomy.fields import REQUIRED, keys
from hwlint.taxonomy.reference import BEGIN, END, SECTIONS, reference_markdown, rewrite

from .conftest import DEFAULT_TAXONOMY, ROOT, run_tool

BUNDLED = [DEFAULT_TAXONOMY, *sorted((ROOT / "examples").glob("taxonomy-*.yaml"))]


def test_the_reference_in_docs_is_generated_from_the_schema():
    page = (ROOT / "docs" / "taxonomy.md").read_text()
    assert page.count(BEGIN) == 1 and page.count(END) == 1
    assert rewrite(page) == page, (
        "docs/taxonomy.md is stale: run `python -m hwlint.taxonomy.reference docs/taxonomy.md`"
    )
    for record, _ in SECTIONS:
        for _, spec in keys(record):
            assert f"| `{spec.path}` |" in reference_markdown()


def test_every_key_is_documented_and_every_record_is_in_the_reference():
    records = {record for record, _ in SECTIONS}
    for record in records:
        for name, spec in keys(record):
            assert spec.doc and not spec.doc.endswith("."), (record.__name__, name)
    # every record a key of the taxonomy holds has a table of its own
    nested = {getattr(spec.kind, "record", None) for r in records for _, spec in keys(r)} - {None}
    assert nested <= records


def test_a_minimal_taxonomy_gets_every_default():
    minimal = parse_taxonomy("classifications: {A: {}}\n", "min.yaml")
    for name, spec in keys(Taxonomy):
        if spec.default is REQUIRED:
            continue
        field = next(f for f in dataclasses.fields(Taxonomy) if f.name == name)
        default = field.default if field.default is not dataclasses.MISSING else field.default_factory()
        assert getattr(minimal, name) == default, name
    assert minimal.classifications["A"] == type(minimal.classifications["A"])("A")


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_taxonomy_show_round_trips_every_bundled_taxonomy(path, tmp_path):
    for fmt in ("yaml", "json"):
        res = run_tool("hwlint", "taxonomy", "show", "--format", fmt, "--taxonomy", str(path))
        assert res.returncode == 0, res.stderr
        shown = tmp_path / f"shown.{fmt}"
        shown.write_text(res.stdout)
        again, original = (dataclasses.replace(load_taxonomy(p), path="", digest="") for p in (shown, path))
        assert again == original
        assert effective_dict(again) == effective_dict(original)


def test_the_effective_taxonomy_holds_every_key_in_file_order():
    shown = effective_dict(load_taxonomy(DEFAULT_TAXONOMY))
    top = [spec.path.partition(".")[0] for _, spec in keys(Taxonomy)]
    assert list(shown) == list(dict.fromkeys(top))
    assert list(shown["classifications"]["GENERIC"]) == [s.path for _, s in keys(type_of("classifications"))]


def type_of(name: str) -> type:
    spec = dict(keys(Taxonomy))[name]
    return spec.kind.record  # type: ignore[attr-defined]


# -- the device vocabulary: policy the device scan reads from the taxonomy -----------------------

VOCABULARY_ERRORS = [
    (
        "devices:\n  cuda:\n    collective_backends: [NCCL]\nclassifications: {A: {}}\n",
        3,
        "devices.cuda.collective_backends[0]",
        "expected a lowercase word (letters only), got a string 'NCCL'",
    ),
    (
        "devices:\n  cuda:\n    collective_backends: [nccl]\n  xpu:\n    collective_backends: [nccl]\n"
        "classifications: {A: {}}\n",
        5,
        "devices.xpu.collective_backends[0]",
        "'nccl' already belongs to device cuda",
    ),
    (
        "devices:\n  cuda:\n    library_modules: [xpu]\n  xpu: {}\nclassifications: {A: {}}\n",
        3,
        "devices.cuda.library_modules[0]",
        "'xpu' is a device type",
    ),
    (
        "accelerator_words: [gpu, cuda]\nclassifications: {A: {}}\n",
        1,
        "accelerator_words[1]",
        "'cuda' is a device type",
    ),
    (
        "accelerator_words:\n  - nccl\nclassifications: {A: {}}\n",
        2,
        "accelerator_words[0]",
        "'nccl' is a library of device cuda",
    ),
    (
        "accelerator_words: gpu\nclassifications: {A: {}}\n",
        1,
        "accelerator_words",
        "expected a list, got a string 'gpu'",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "key", "message"), VOCABULARY_ERRORS, ids=[e[2] for e in VOCABULARY_ERRORS]
)
def test_a_bad_device_vocabulary_is_a_precise_error(text, line, key, message):
    with pytest.raises(TaxonomyError) as info:
        parse_taxonomy(text, "bad.yaml")
    assert (info.value.line, info.value.key, info.value.message) == (line, key, message)


def test_the_bundled_taxonomy_writes_out_the_vocabulary_the_defaults_hold(taxonomy):
    """A file without `devices` or `accelerator_words` gets what the bundled one writes."""
    minimal = parse_taxonomy("classifications: {A: {}}\n")
    assert minimal.devices == taxonomy.devices
    assert minimal.accelerator_words == taxonomy.accelerator_words
    cuda, xpu = taxonomy.devices["cuda"], taxonomy.devices["xpu"]
    assert (cuda.collective_backends, cuda.library_modules, xpu.collective_backends) == (
        ("nccl",),
        ("cudnn",),
        ("xccl",),
    )
    assert taxonomy.accelerator_words == ("gpu", "gpus", "multigpu", "accelerator", "accelerators")

"""The dataset card (``README.md``): the YAML header the hub reads and a body, written from the manifest.

Every count, id, document name and file name of the card comes from the
export's manifest, every column description from the files' Arrow schemas
(their field metadata), and the comparison with other projects' splits from
the ``pyfn audit`` records shipped in ``resources/hub/audits.json``
(:mod:`pyfn.hub.audits`). Nothing in it depends on the machine or the time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa

from pyfn.hf import CITATION as PYFN_CITATION
from pyfn.hub.audits import audit_rows
from pyfn.hub.layout import EXEMPLARS, FRAMES, FULLTEXT, HUB_SPLITS, IDS, LEXICON, RELEASE_SPLIT
from pyfn.splits.trace import step_of

LICENSE = "cc-by-3.0"
"""FrameNet's data licence on the hub: Creative Commons Attribution 3.0 Unported (FrameNet's licensing page;
NLTK's data index lists framenet_v17 under it)."""
FRAMENET_CITATION = (
    "@inproceedings{baker-etal-1998-berkeley,\n"
    "  title = {The {B}erkeley {F}rame{N}et Project},\n"
    "  author = {Baker, Collin F. and Fillmore, Charles J. and Lowe, John B.},\n"
    "  booktitle = {36th Annual Meeting of the Association for Computational Linguistics and 17th International "
    "Conference on Computational Linguistics, Volume 1},\n"
    "  year = {1998}, pages = {86--90}, url = {https://aclanthology.org/P98-1013/}\n}"
)
DESCRIPTIONS = {
    FULLTEXT: "the standard split of FrameNet's fulltext documents: one row per annotation set (a target, its "
              "lexical unit, frame and frame-element spans)",
    EXEMPLARS: "train is fulltext train plus the lexicographic exemplar sentences of `lu/*.xml`; validation and "
               "test are the same files as `fulltext`'s (exemplars only ever go to train)",
    FRAMES: "one row per frame of the release: definition, frame elements with core type and definition, lexical "
            "units, frame relations",
    LEXICON: "one row per lexical unit: the frames it evokes in a config's train (train-only lexicon, for candidate "
             "frames without looking at validation or test) beside those its frame files give it (full release)",
}
PEER_RULES = (
    ("Open-SESAME", "swabhs/open-sesame 6d8395c, `sesame/preprocess.py`",
     "the same dev and test documents; train exemplars are dropped only when their annotation-set ID is the ID of "
     "a dev or test set (an ID match, not a text match: FrameNet numbers fulltext and exemplar sets apart), so an "
     "exemplar sentence that is also a dev or test sentence stays in train; no duplicate removal; frame `Test35` "
     "skipped; unannotated (`UNANN`) sets kept in test only"),
    ("frame-semantic-transformer", "chanind/frame-semantic-transformer c16afa8, FrameNet 1.7 only",
     "Open-SESAME's document lists, read through NLTK; train exemplars dropped only when their text is exactly "
     "(character for character) that of an annotated fulltext sentence; no normalised-text check between "
     "splits, no duplicate removal"),
)
REASONS = {
    "duplicate": "same sentence (lower-cased, whitespace removed), target spans, lexical unit and frame as a kept set "
                 "with a lower annotation-set ID",
    "overlap:dev": "its sentence (lower-cased, whitespace removed) is also a validation sentence",
    "overlap:test": "its sentence (lower-cased, whitespace removed) is also a test sentence",
    "invalid:unpaired_offset": "a label has only one of start and end",
    "invalid:offset_past_end": "a label offset is at or past the end of the text",
    "invalid:start_after_end": "a label starts after its end",
    "invalid:whitespace_boundary": "a label offset points at a whitespace character",
}
"""What each ledger reason of a build means (SPLITS.md); the others are explained by their family."""
FAMILIES = {
    "excluded:": "its {} id was excluded by the options",
    "filter:": "removed by the train filter `{}`",
    "no_target:": "names a frame but has no usable Target layer ({})",
    "malformed_": "could not be read ({})",
}


def _yaml(value: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(value, ensure_ascii=False)


def size_category(rows: int) -> str:
    """The hub's ``size_categories`` value for ``rows`` examples."""
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                        (10_000_000, "1M<n<10M")):
        if rows < bound:
            return name
    return "10M<n<100M"


def pretty_name(manifest: Mapping[str, Any]) -> str:
    """The card's title: the release, and whether the split is the standard one."""
    standard = "standard split" if manifest["split_definition"]["standard"] else "INCOMPLETE standard split"
    return f"FrameNet {manifest['release']['version']} ({standard}, pyfn {manifest['pyfn_version']})"


def header(manifest: Mapping[str, Any]) -> list[str]:
    """The YAML header: licence, language, task, size and every config's files per split."""
    configs = manifest["configs"]
    largest = max(sum(s["rows"] for s in configs[c]["splits"].values()) for c in (FULLTEXT, EXEMPLARS))
    lines = ["---", f"pretty_name: {_yaml(pretty_name(manifest))}", f"license: {LICENSE}", "language:", "- en",
             "annotations_creators:", "- expert-generated", "language_creators:", "- found", "multilinguality:",
             "- monolingual", "size_categories:", f"- {_yaml(size_category(largest))}", "task_categories:",
             "- token-classification", "tags:", "- framenet", "- frame-semantics", "- semantic-role-labeling",
             "- frame-semantic-parsing", "configs:"]
    for config, record in configs.items():
        lines.append(f"- config_name: {config}")
        if config == FULLTEXT:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split, entry in record["splits"].items():
            lines += [f"  - split: {split}", "    path:", *(f"    - {_yaml(name)}" for name in entry["files"])]
    return [*lines, "---"]


def _n(value: int) -> str:
    return f"{value:,}"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(row) + " |" for row in rows)]


def _type(type_: pa.DataType) -> str:
    if pa.types.is_list(type_):
        return f"list of {_type(type_.value_type)}"
    if pa.types.is_struct(type_):
        return "struct"
    return str(type_)


def _fields(fields: list[pa.Field], prefix: str = "") -> Iterator[list[str]]:
    """A row per column, and per field of a struct (``fes[].name``), with its type and description."""
    for field in fields:
        meta = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
        text = meta.get("description", "")
        if "span" in meta:
            text += f" ({meta['span']})"
        yield [f"`{prefix}{field.name}`", _type(field.type), text.replace("|", "\\|")]
        inner = field.type.value_type if pa.types.is_list(field.type) else field.type
        if pa.types.is_struct(inner):
            yield from _fields(list(inner), f"{prefix}{field.name}{'[]' if inner is not field.type else ''}.")


def _reason(reason: str, filters: Mapping[str, str]) -> str:
    if reason in REASONS:
        return REASONS[reason]
    if reason.startswith("filter:") and reason[7:] in filters:
        return f"removed by the train filter `{reason[7:]}`: {filters[reason[7:]]}"
    for family, text in FAMILIES.items():
        if reason.startswith(family):
            return text.format(reason[len(family):])
    return reason


def _load_lines(manifest: Mapping[str, Any]) -> list[str]:
    repo = manifest["options"]["repo_id"] or "path/to/this/folder"
    return [
        "```python",
        "from datasets import load_dataset",
        "",
        f'fulltext = load_dataset("{repo}", "fulltext")                       # train / validation / test',
        f'with_exemplars = load_dataset("{repo}", "fulltext_exemplars")       # train + exemplars',
        f'frames = load_dataset("{repo}", "frames", split="{RELEASE_SPLIT}")',
        f'lexicon = load_dataset("{repo}", "lexicon", split="fulltext")       # train-only and release candidates',
        "```",
    ]


def _summary(manifest: Mapping[str, Any]) -> list[str]:
    release, definition, configs = manifest["release"], manifest["split_definition"], manifest["configs"]
    lines = [f"# {pretty_name(manifest)}", ""]
    if not definition["standard"]:
        missing = definition["missing_documents"]
        where = " and ".join(f"{HUB_SPLITS[split]} document{'s' if len(docs) > 1 else ''} "
                             + ", ".join(f"`{d}`" for d in docs)
                             for split in ("dev", "test") if (docs := [d for d in missing if d in definition[split]]))
        lines += [
            f"> **Not the standard split.** The copy of FrameNet {release['version']} this folder was built from "
            f"lacks the {where} of the standard lists, and was built with `--allow-incomplete` (signature "
            f"`...|split:{definition['name']}-incomplete|...`). Its annotation sets are in no split, and train may "
            "keep sentences that the missing document would have kept out of it (step 5 below). Do not report "
            "results on this folder as results on the standard split.", ""]
    lines += [
        f"FrameNet {release['version']} annotation sets split into train, validation and test by "
        f"[pyfn](https://gitlab.com/akb89/pyfn) {manifest['pyfn_version']} as Kabbach et al. (2018) define it: whole "
        "documents of the standard lists go to validation and test, invalid and duplicate annotation sets are "
        "removed, and no sentence of validation or test is in train. Every removal is counted below by reason, the "
        "ids of every split are published in `splits/`, and `manifest.json` records how the folder was made.",
        "",
        f"- release: FrameNet {release['version']} ({manifest['source']['path']}); fingerprint (sha256 over the "
        f"{_n(release['files_read'])} files read) `{release['fingerprint']}`",
    ]
    for config in (FULLTEXT, EXEMPLARS):
        lines.append(f"- data signature of `{config}`: `{configs[config]['signature']}`")
    lines += ["", "## Configs", ""]
    rows = []
    for config, record in configs.items():
        for split, entry in record["splits"].items():
            sentences = _n(entry["sentences"]) if "sentences" in entry else ""
            rows.append([f"`{config}`", f"`{split}`", _n(entry["rows"]), sentences, str(len(entry["files"]))])
    lines += _table(["config", "split", "rows", "sentences", "files"], rows)
    lines += ["", *(f"- `{config}`: {DESCRIPTIONS[config]}." for config in configs), ""]
    return [*lines, "Load it with `datasets` (no loading script, no pyfn needed):", "", *_load_lines(manifest)]


def _columns(schemas: Mapping[str, pa.Schema]) -> list[str]:
    lines = ["## Columns", "",
             "Tokens are FrameNet's whitespace tokens (`str.split()` of the text: FrameNet gives none); token "
             "offsets index `tokens`, character offsets index `text`. Spans come in both conventions: `end` is "
             "FrameNet's (inclusive), `stop` Python's (exclusive). A frame-element row has its layer's `rank` (1: "
             "the main annotation) and, for a null instantiation, its `itype` and null spans."]
    for config, schema in schemas.items():
        if config == EXEMPLARS:
            continue
        name = "fulltext` and `fulltext_exemplars" if config == FULLTEXT else config
        lines += ["", f"### `{name}`", "", *_table(["column", "type", "description"], list(_fields(list(schema))))]
    return lines


def _split_section(manifest: Mapping[str, Any]) -> list[str]:
    definition, options = manifest["split_definition"], manifest["options"]
    lines = ["## How the split was made", "",
             f"Validation and test are whole fulltext documents: the standard lists (`{definition['name']}`, those of "
             "Das et al. 2014 used by SEMAFOR, Open-SESAME and pyfn), train every other fulltext document; exemplars "
             "only ever go to train (`fulltext_exemplars`). Then, in order (pyfn's docs/SPLITS.md): (1) read the "
             "frame annotation sets, (2) drop sets with an invalid label offset, (3) drop excluded ids, (4) apply "
             "the train filters, (5) drop every train and validation set whose sentence, lower-cased and without "
             "whitespace, is in a later split (test keeps all of its sentences), (6) drop duplicates within a split "
             "(same sentence, target spans, lexical unit and frame: the lowest annotation-set ID is kept), "
             "(7) count every removal.", ""]
    for split in ("dev", "test"):
        lines.append(f"- {HUB_SPLITS[split]} documents ({len(definition[split])}): "
                     + ", ".join(f"`{d}`" for d in definition[split]))
    if definition["missing_documents"]:
        lines.append("- missing from this copy of the release: "
                     + ", ".join(f"`{d}`" for d in definition["missing_documents"]))
    excluded = [f"{kind} {', '.join(map(str, options[f'exclude_{kind}']))}"
                for kind in ("frames", "lus", "sentences", "annosets") if options[f"exclude_{kind}"]]
    lines.append(f"- excluded ids: {'; '.join(excluded) if excluded else 'none'}")
    lines.append(f"- train filters: {', '.join(options['filters']) or 'none'}"
                 + (" (applied to validation and test too)" if options.get("filter_scope") == "all" else ""))
    return lines


def _removed_section(manifest: Mapping[str, Any]) -> list[str]:
    lines = ["## What was removed, and why", ""]
    for config, build in manifest["builds"].items():
        reasons = sorted({reason for counts in build["ledger"].values() for reason in counts})
        rows = [[f"`{reason}`", str(step_of(reason)[0]), _reason(reason, build["filters"]),
                 *(_n(build["ledger"][split].get(reason, 0)) for split in HUB_SPLITS)] for reason in reasons]
        total = sum(sum(counts.values()) for counts in build["ledger"].values())
        lines += [f"`{config}` ({_n(total)} annotation sets removed):", "",
                  *_table(["reason", "step", "why", *HUB_SPLITS.values()], rows), ""]
        groups = build["dedup"]["groups_with_differing_fes"]
        lines.append("Duplicate groups whose sets disagree on their frame-element labels (which one is kept then "
                     "matters; listed in `manifest.json`): "
                     + ", ".join(f"{HUB_SPLITS[s]} {_n(len(groups.get(s, [])))}" for s in HUB_SPLITS) + ".")
        problems = len(build["problems"])
        if problems:
            lines.append(f"Unreadable items skipped: {_n(problems)} (listed in `manifest.json`).")
        lines.append("")
    for warning in manifest["warnings"]:
        lines.append(f"- warning: {warning}")
    return lines


def _ids_section(manifest: Mapping[str, Any]) -> list[str]:
    lines = ["## Split ids", "",
             f"`{IDS}/{{config}}/{{split}}.{{source}}.annoset_ids.txt` and `.sentence_ids.txt` (`split` is pyfn's: "
             "`dev` is validation; `source` `fulltext` or `exemplar`, which FrameNet numbers apart) list the ids of "
             "every split, one per line in increasing order; `ids.json` holds their counts and sha256, and the sha256 "
             "of each split's normalised sentence texts, so a split can be checked without FrameNet's XML "
             "(`pyfn audit splits/fulltext --source RELEASE` audits it)."]
    return lines


def _peers_section(manifest: Mapping[str, Any]) -> list[str]:
    version = manifest["release"]["version"]
    lines = ["## How this differs from Open-SESAME's and frame-semantic-transformer's splits", ""]
    lines += [f"- **{name}** ({where}): {rule}." for name, where, rule in PEER_RULES]
    rows, notes = audit_rows(version, manifest["release"]["fingerprint"],
                             {c: manifest["configs"][c]["signature"] for c in (FULLTEXT, EXEMPLARS)})
    lines.append("")
    if rows:
        lines += [f"`pyfn audit` on FrameNet {version} (sentences compared lower-cased and without whitespace; "
                  "a set is twice in a split when its sentence, target, lexical unit and frame are):", "",
                  *_table(["split", "train / validation / test sets",
                           "train exemplar texts also in validation / test", "texts shared train-validation / "
                           "train-test / validation-test", "sets twice: train / test"], rows), ""]
    lines += notes
    return lines


def _licence_section(manifest: Mapping[str, Any]) -> list[str]:
    return [
        "## Licence and credits", "",
        "FrameNet is a lexical database of English built at the International Computer Science Institute (ICSI), "
        "Berkeley: semantic frames, their frame elements (semantic roles) and the words that evoke them, with "
        "sentences annotated by lexicographers (https://framenet.icsi.berkeley.edu/). Its data is licensed under "
        "the Creative Commons Attribution 3.0 Unported licence (CC BY 3.0): you may share and adapt it, also "
        "commercially, provided you credit FrameNet (cite Baker et al. 1998), link the licence "
        "(https://creativecommons.org/licenses/by/3.0/) and say what was changed. Changed here: the annotation "
        "sets are split, some are removed (above), and the whitespace tokens, token offsets and plain-text "
        "definitions are derived by pyfn; nothing else is edited.",
        "",
        "The split and its rules are those of Kabbach, Ribeyre and Herbelot (2018); pyfn (MIT licence) built this "
        "folder. Cite both FrameNet and Kabbach et al. when you use it:",
        "", "```bibtex", FRAMENET_CITATION, "", PYFN_CITATION, "```",
    ]


def _rebuild_section(manifest: Mapping[str, Any]) -> list[str]:
    options = manifest["options"]
    flags = [f"--exclude-{kind} {' '.join(map(str, options[f'exclude_{kind}']))}"
             for kind in ("frames", "lus", "sentences", "annosets") if options[f"exclude_{kind}"]]
    if options["filters"]:
        flags.append(f"--filter {' '.join(options['filters'])}")
    if options.get("filter_scope") == "all":
        flags.append("--filter-scope all")
    if options["allow_incomplete"]:
        flags.append("--allow-incomplete")
    if options["repo_id"]:
        flags.append(f"--repo-id {options['repo_id']}")
    parquet = manifest["parquet"]
    return [
        "## Rebuild it byte for byte", "",
        "```sh",
        f'pip install "pyfn[parquet]=={manifest["pyfn_version"]}" "pyarrow=={parquet["pyarrow"]}"',
        " ".join(["pyfn export hf", f"--source {manifest['source']['path']}", "--target DIR", *flags]),
        "```",
        "",
        f"With a release whose fingerprint is `{manifest['release']['fingerprint']}`, every file is then "
        "byte-identical to this folder's (`manifest.json` lists their sha256). pyfn writes Parquet with pinned "
        f"options (zstd level {parquet['writer_options']['compression_level']}, row groups of "
        f"{_n(parquet['row_group_rows'])} rows, files of at most {_n(parquet['shard_rows'])} rows, no timestamp); "
        "the footer names the pyarrow version, the one thing another pyarrow is sure to change. The same build "
        "is `pyfn convert --to parquet` (plus `--with-exemplars` for `fulltext_exemplars`); `pyfn show ID "
        "--source RELEASE` tells where any annotation set went and why.",
    ]


def render(manifest: Mapping[str, Any], schemas: Mapping[str, pa.Schema]) -> str:
    """The card's text for an export's ``manifest`` and each config's Arrow schema."""
    parts = [header(manifest), _summary(manifest), _columns(schemas), _split_section(manifest),
             _removed_section(manifest), _ids_section(manifest), _peers_section(manifest),
             _licence_section(manifest), _rebuild_section(manifest)]
    lines: list[str] = []
    for line in (line for part in parts for line in [*part, ""]):
        if line or (lines and lines[-1]):  # one blank line between blocks
            lines.append(line)
    return "\n".join(lines).rstrip("\n") + "\n"


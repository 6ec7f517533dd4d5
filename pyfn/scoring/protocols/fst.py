"""frame-semantic-transformer's argument evaluation (``ArgumentsExtractionSample.evaluate_prediction``).

frame-semantic-transformer (FST) is a text-to-text model: for argument
extraction it writes ``"FE = text | FE = text"`` and is scored on those
strings, so an FE matches by its **name and text**, not its offsets (the same
words elsewhere in the sentence match too). Per args task:

- the gold string is ``" | ".join(f"{name} = {text}")`` over the rank-1 FE
  labels of the gold set (``get_target``), the predicted string the same over
  the predicted set's labels;
- both are split back by ``split_output_fe_spans``: Hugging Face's
  ``clean_up_tokenization`` (``" ."`` → ``"."``, ``" 's"`` → ``"'s"``, ...),
  split on ``|``, each part split on ``=`` (a part without ``=`` is dropped, a
  text holding ``=`` or ``|`` is cut there), both sides stripped;
- predicted names go through ``standardize_element_name``: lower-cased,
  ``_`` removed and looked up among every FE name of every frame (the last
  frame read wins, so a right name can come back spelled as another frame
  spells it: FN 1.5 has 32 such names); a name of no frame is dropped;
- a gold pair found (list membership) in the predicted pairs is a true
  positive, else a false negative; a predicted pair not among the gold pairs
  a false positive; a point is 0.5 for an FE that is not Core in the gold
  frame, 1 otherwise (an FE the frame does not list weighs 1).

One task is made per Target *label* (``trigger_locs``), so a set whose target
has two pieces is scored **twice**. The frame is the gold frame (given in the
task's input); the predicted frame is ignored. Not reproduced: the T5
SentencePiece round trip of the gold string (it needs the model's
vocabulary); both strings are built the same way, so gold scores 1 against
itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from pyfn.scoring.protocols.base import (
    ZERO,
    Card,
    Counts,
    Measure,
    Result,
    Source,
    TokenSet,
    by_target,
    read_pair,
    signature,
)

SOURCE = Source("chanind/frame-semantic-transformer", "c16afa89b492d65e9b7963d7c1396981c1e4ca17",
                "frame_semantic_transformer/data/tasks/ArgumentsExtractionSample.py")

Inventory = Mapping[str, tuple[tuple[str, str], ...]]

_CLEANUPS = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
             (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def clean_up_tokenization(text: str) -> str:
    """Hugging Face's ``clean_up_tokenization``: spaces before punctuation and clitics removed, in this order."""
    for old, new in _CLEANUPS:
        text = text.replace(old, new)
    return text


def split_output(output: str) -> list[tuple[str, str]]:
    """``"A = x | B = y"`` -> ``[("A", "x"), ("B", "y")]`` as ``split_output_fe_spans`` splits it."""
    out = []
    for part in clean_up_tokenization(output).split("|"):
        pieces = part.strip().split("=")
        if len(pieces) > 1:
            out.append((pieces[0].strip(), pieces[1].strip()))
    return out


def normalize(name: str) -> str:
    return name.lower().replace("_", "")


def name_lookup(inventory: Inventory) -> dict[str, str]:
    """Normalized FE name -> the spelling of the last frame read (core FEs of a frame before its others).

    FST reads frames in NLTK's ``fn.frames()`` order, that of ``frameIndex.xml``: sorted by name. FN 1.5
    spells 32 FE names two ways (``Entity_1`` / ``Entity1``, ``Body_part`` / ``Body_Part``...), so a
    predicted name that is right for its frame can come back spelled as another frame spells it, and miss.
    """
    out: dict[str, str] = {}
    for frame in sorted(inventory):
        fes = inventory[frame]
        for name, core_type in (*((n, c) for n, c in fes if c == "Core"), *((n, c) for n, c in fes if c != "Core")):
            out[normalize(name)] = name
    return out


def target_string(text: str, fes: Sequence[tuple[str, int, int]]) -> str:
    """``get_target``: ``name = text`` of each label (character offsets, end inclusive), joined by ``" | "``."""
    return " | ".join(f"{name} = {text[start:end + 1]}" for name, start, end in fes)


def task(text: str, gold: TokenSet, pred: TokenSet | None, non_core: frozenset[str], lookup: dict[str, str]) -> Counts:
    """One args task: the gold set's pairs against the predicted set's."""
    gold_pairs = split_output(target_string(text, gold.fe_chars))
    pred_pairs = []
    for name, words in split_output(target_string(text, pred.fe_chars) if pred is not None else ""):
        fixed = lookup.get(normalize(name))
        if fixed is not None:
            pred_pairs.append((fixed, words))
    tp = fp = fn = 0.0
    for pair_ in gold_pairs:
        weight = 0.5 if pair_[0] in non_core else 1.0
        if pair_ in pred_pairs:
            tp += weight
        else:
            fn += weight
    for pair_ in pred_pairs:
        if pair_ not in gold_pairs:
            fp += 0.5 if pair_[0] in non_core else 1.0
    return Counts(tp, fp, fn)


def score(gold: Path, pred: Path, *, inventory: Inventory, lexicon: str) -> Result:
    """FST's argument-extraction score of ``pred`` against ``gold`` (SemEval XML files)."""
    skipped: Counter = Counter()
    paired = read_pair(gold, pred)
    skipped.update(paired.skipped)
    lookup = name_lookup(inventory)
    total = ZERO
    for sentence in paired.sentences:
        for g, p in by_target(sentence, skipped):
            skipped["gold_fe_rank2"] += sum(1 for rank, _ in g.aset.overt_fes if rank != 1)
            if g.aset.frame_name not in inventory:
                skipped["gold_frame_not_in_lexicon"] += 1
                continue
            non_core = frozenset(n for n, c in inventory[g.aset.frame_name] if c != "Core")
            pieces = len(g.target_pieces)
            skipped["scored_again_per_target_piece"] += pieces - 1
            counts = task(sentence.text, g, p, non_core, lookup)
            for _ in range(pieces):
                total += counts
    card = Card(
        protocol="fst-text",
        source=SOURCE,
        point="an (FE name, FE text) pair of a gold set, once per Target label",
        matched="FE name (normalized, through every frame's FE names) and FE text after clean_up_tokenization; "
                "not offsets",
        span_match="text string",
        weights="0.5 for an FE not Core in the gold frame, else 1",
        skips="rank-2 FE labels, predicted sets off gold targets, predicted FE names of no frame, the predicted "
              "frame; a multi-piece target is scored once per piece",
        skipped=dict(skipped),
        signature=signature("fst-text", gold, lexicon),
    )
    return Result((Measure("args", total, *total.prf()),), "args", card)

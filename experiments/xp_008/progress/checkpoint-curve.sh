#!/bin/sh
# SEMAFOR's argument model has no dev evaluation of its own: this scores each saved checkpoint
# (argmodel.dat_N) on dev and test given gold frames, as the recipe's decode/import/score steps do, and
# gathers the scores into experiments/xp_008/progress/checkpoint-curve.json. A checkpoint already scored is
# not decoded again. Run from the repository root after the recipe's data and lexicon steps:
#   [CURVE_EVERY=N] sh experiments/xp_008/progress/checkpoint-curve.sh [RUN] [OUT]
# CURVE_EVERY=N scores only the checkpoints of iterations divisible by N (default 5: every checkpoint); scoring
# one costs about as much CPU as five training iterations.
set -eu
EVERY=${CURVE_EVERY:-5}
: "${SEMAFOR_HOME:?set SEMAFOR_HOME (and SEMAFOR_JWNL) as for pyfn semafor setup}"
RUN=${1:-experiments/xp_008/work/semafor}
OUT=${2:-${PYFN_CACHE:-$HOME/.cache/pyfn}/runs/xp_008/checkpoints}
W=experiments/xp_008/work
mkdir -p "$OUT"
for model in $(cd "$RUN/argid" && ls argmodel.dat_* | sort -t_ -k2 -n); do
  [ -f "$OUT/$model.test.argsonly.json" ] && continue
  [ $(( ${model#argmodel.dat_} % EVERY )) -eq 0 ] || continue
  # refused when the checkpoint is being written (the training runs on): scored the next time
  if ! pyfn semafor decode --quiet --run "$RUN" --model "$model" --splits dev test --output "$OUT/$model"; then
    echo "checkpoint-curve: $model not scored this time" >&2
    continue
  fi
  pyfn convert --quiet --from semafor --to semeval --source "$OUT/$model" --target "$OUT/$model.semeval" \
    --gold "$W/data" --splits dev test
  for split in dev test; do
    pyfn score --mode argsonly --gold "$W/data/$split.gold.xml" --pred "$OUT/$model.semeval/$split.predicted.xml" \
      --frames "$W/lexicon/frames.xml" --relations "$W/lexicon/frRelations.xml" --json \
      --output "$OUT/$model.$split.argsonly.json"
  done
done
python - "$OUT" experiments/xp_008/progress/checkpoint-curve.json <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
rows = []
for path in sorted(out.glob("argmodel.dat_*.test.argsonly.json"), key=lambda p: int(p.name.split(".")[1][4:])):
    model = path.name[: -len(".test.argsonly.json")]
    row = {"model": model, "iteration": int(model.split("_")[1]),
           "model_sha256": json.loads((out / model / "test.semafor.json").read_text())["model_sha256"]}
    for split in ("dev", "test"):
        score = json.loads((out / f"{model}.{split}.argsonly.json").read_text())
        row[split] = {k: round(score[k], 4) for k in ("precision", "recall", "f1")}
    rows.append(row)
text = json.dumps({"scorer": "pyfn score --mode argsonly (gold frames and targets)", "checkpoints": rows}, indent=1)
tmp = pathlib.Path(sys.argv[2] + ".tmp")
tmp.write_text(text + "\n")
tmp.replace(sys.argv[2])
print(text)
PY

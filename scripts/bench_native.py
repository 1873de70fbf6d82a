#!/usr/bin/env python3
"""scripts/bench.sh's Python side (a benchmark, not a test).

  prepare  MODEL --seq-lens 128,256
      Exports the checkpoint folder MODEL (a random roberta-base-shaped model written by
      crates/model/tests/golden/make_golden.py --no-golden) to ONNX with torch.onnx, as
      MODEL/onnx/model.onnx (what transformers.js loads with dtype fp32); quantizes that file
      to MODEL/onnx/model_quantized.onnx as transformers.js' own conversion makes its q8 files
      (what it loads with dtype q8, its default on wasm; see quantize_q8 below), and writes
      MODEL/bench-inputs.json: for each sequence length one premise/hypothesis pair that the
      checkpoint's own tokenizer encodes to exactly that many tokens (specials included), so
      every runtime in the benchmark reads the same text and the same token count.

  measure  MODEL --seq-lens 128 --batch-sizes 1,8 --threads 2 --repeats 3 [--round 2]
      PyTorch CPU (eager, sdpa attention) and onnxruntime (CPU, MLAS) on the same checkpoint,
      onnxruntime twice: the f32 export and the int8 file (model_quantized.onnx, the same file
      transformers.js runs at q8): examples/s per sequence length x batch size, the median of
      --repeats timed calls after one warm-up call. Inputs are pre-tokenized, as in `tabprobe
      bench`. One JSON object per line on stdout: {"runtime", "backend", "precision",
      "threads", "seq_len", "batch_size", "median", "best", "round"}; then, in round 1 (the
      default), PyTorch against onnxruntime f32 (must agree within 1e-3, or it stops) and
      onnxruntime int8 against f32 (quantization noise: printed and recorded as a
      {"deviation": …} line, never a failure).

  unavailable  RUNTIME BACKEND PRECISION THREADS REASON
      The JSON line of a row that could not be measured (e.g. tabprobe's int8 in a build without
      it); the table prints "not available in this build" there.

  table  FIGURES
      The Markdown table of one scripts/bench.sh run, with the ratios. Where a row was
      measured in several rounds (scripts/bench.sh's ROUNDS: the native runtimes one after
      another, round after round), its figure is the median of the rounds' medians, and each
      ratio also shows the range of the rounds' own ratios (same round, minutes apart at most).
"""

import argparse
import collections
import json
import os
import statistics
import sys
import time


def pair_of_length(tok, n):
    """A (premise, hypothesis) pair the tokenizer encodes to exactly n tokens."""
    hypothesis = "The album was released in 1979."
    words = ["the"] * n
    for k in range(n, 0, -1):
        premise = " ".join(words[:k])
        length = len(tok(premise, hypothesis)["input_ids"])
        if length == n:
            return premise, hypothesis
        if length < n:
            break
    sys.exit(f"bench_native.py: no premise of repeated 'the' gives exactly {n} tokens")


def prepare(args):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(args.model)
    inputs = {}
    for n in args.seq_lens:
        premise, hypothesis = pair_of_length(tok, n)
        inputs[str(n)] = {"premise": premise, "hypothesis": hypothesis}
    with open(os.path.join(args.model, "bench-inputs.json"), "w", encoding="utf-8") as f:
        json.dump(inputs, f, indent=1)

    out = os.path.join(args.model, "onnx", "model.onnx")
    if os.path.exists(out):
        print(f"bench_native.py: {out} exists; not exported again", file=sys.stderr)
    else:
        export(args.model, tok, out)
    quantized = os.path.join(args.model, "onnx", "model_quantized.onnx")
    if os.path.exists(quantized):
        print(f"bench_native.py: {quantized} exists; not quantized again", file=sys.stderr)
    else:
        quantize_q8(out, quantized)


def export(folder, tok, out):
    import torch
    from transformers import AutoModelForSequenceClassification

    os.makedirs(os.path.dirname(out), exist_ok=True)
    model = AutoModelForSequenceClassification.from_pretrained(folder, attn_implementation="eager").eval()
    enc = tok(["a b c"] * 2, ["d e"] * 2, return_tensors="pt")
    with torch.no_grad():
        torch.onnx.export(
            model,
            (enc["input_ids"], enc["attention_mask"]),
            out,
            input_names=["input_ids", "attention_mask"],
            output_names=["logits"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "logits": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )
    print(f"bench_native.py: wrote {out}", file=sys.stderr)


# The operators for which transformers.js' quantize.py (huggingface/transformers.js,
# scripts/quantize.py: QUINT8_OPS) quantizes q8 weights as uint8 instead of int8, because
# onnxruntime-web has no ConvInteger for int8 weights; a RoBERTa export has none of them.
QUINT8_OPS = ("Conv", "GroupQueryAttention", "MultiHeadAttention")


def quantize_q8(src, dst):
    """The q8 file transformers.js loads by default on wasm (its utils/dtypes.js:
    DEFAULT_DEVICE_DTYPE_MAPPING = { wasm: q8 }, file suffix `_quantized`), made as its own
    conversion makes it: huggingface/transformers.js scripts/quantize.py, mode q8, runs
    onnxruntime's dynamic quantizer (ONNXQuantizer, QuantizationMode.IntegerOps, not static)
    with QInt8 weights unless the graph has a QUINT8_OPS operator, QUInt8 activations (the
    only dynamic activation type), per_channel and reduce_range off (their defaults, None),
    every IntegerOpsRegistry operator (MatMul, Gather, Attention, LSTM, Conv, Transpose,
    EmbedLayerNormalization), MatMulConstBOnly and EnableSubgraph. onnxruntime's
    `quantize_dynamic` with those arguments is the same quantizer with the same settings
    (it also sets MatMulConstBOnly by default). So the file quantizes every MatMul with a
    constant weight — the attention projections, the feed-forward layers and (exported as
    MatMul by torch.onnx) the classification head's two dense layers; per tensor: one scale
    per weight matrix; activations per tensor, asymmetric uint8, computed at run time by
    DynamicQuantizeLinear — and the embedding tables (Gather, dequantized on lookup); the
    attention products (QK^T, AV: MatMuls of two activations), softmax, layer norms and any
    Gemm stay f32 (the counts are printed). tabprobe's int8 differs: weights per output
    channel, activations per row and symmetric, embeddings and head f32."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    ops = {n.op_type for n in onnx.load(src, load_external_data=False).graph.node}
    weight_type = QuantType.QUInt8 if ops & set(QUINT8_OPS) else QuantType.QInt8
    quantize_dynamic(src, dst, per_channel=False, reduce_range=False, weight_type=weight_type,
                     extra_options={"EnableSubgraph": True, "MatMulConstBOnly": True})
    counts = collections.Counter(n.op_type for n in onnx.load(dst, load_external_data=False).graph.node)
    print(f"bench_native.py: wrote {dst} (weights {weight_type.name}, per tensor): "
          f"{counts['MatMulInteger']} MatMulInteger, {counts['DynamicQuantizeLinear']} DynamicQuantizeLinear, "
          f"{counts['MatMul']} MatMul and {counts['Gemm']} Gemm left in f32, "
          f"{counts['DequantizeLinear']} DequantizeLinear (quantized Gather tables)", file=sys.stderr)


def timed(call, examples, repeats):
    call()  # warm-up
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        rates.append(examples / (time.perf_counter() - t))
    return statistics.median(rates), max(rates)


def synthetic_ids(n, batch):
    """Token ids of exactly n tokens per row (<s> ... </s>), as tabprobe bench's synthetic pair."""
    import numpy as np

    row = [0] + [5 + (i * 7919) % 1000 for i in range(1, n - 1)] + [2]
    ids = np.array([row] * batch, dtype=np.int64)
    return ids, np.ones_like(ids)


def measure(args):
    import numpy as np
    import onnxruntime as ort
    import torch
    from transformers import AutoModelForSequenceClassification

    torch.set_num_threads(args.threads)
    model = AutoModelForSequenceClassification.from_pretrained(args.model, attn_implementation="sdpa").eval()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    opts.inter_op_num_threads = 1
    files = {"f32": "model.onnx", "int8": "model_quantized.onnx"}
    sessions = {
        p: ort.InferenceSession(os.path.join(args.model, "onnx", files[p]), opts, providers=["CPUExecutionProvider"])
        for p in args.ort_precisions
    }
    for n in args.seq_lens:
        for b in args.batch_sizes:
            ids, mask = synthetic_ids(n, b)
            t_ids, t_mask = torch.from_numpy(ids), torch.from_numpy(mask)

            def run_torch():
                with torch.inference_mode():
                    model(input_ids=t_ids, attention_mask=t_mask)

            calls = [("pytorch-cpu", "f32", run_torch)]
            for p, session in sessions.items():
                calls.append(("onnxruntime-cpu", p, lambda s=session: s.run(["logits"], {"input_ids": ids, "attention_mask": mask})))
            for name, precision, call in calls:
                median, best = timed(call, b, args.repeats)
                print(json.dumps({"runtime": name, "backend": "cpu", "precision": precision, "threads": args.threads,
                                  "seq_len": n, "batch_size": b,
                                  "median": round(median, 3), "best": round(best, 3), "round": args.round}), flush=True)
    if args.round != 1:
        return
    # Same model, same input: PyTorch and onnxruntime f32 must agree, or the comparison is void;
    # onnxruntime's int8 file is compared with its f32 one and the gap only recorded.
    ids, mask = synthetic_ids(args.seq_lens[0], 2)
    with torch.inference_mode():
        a = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).logits.numpy()
    logits = {p: s.run(["logits"], {"input_ids": ids, "attention_mask": mask})[0] for p, s in sessions.items()}
    if "int8" in logits and "f32" in logits:
        f, q = logits["f32"], logits["int8"]

        def softmax(x):
            e = np.exp(x - x.max(-1, keepdims=True))
            return e / e.sum(-1, keepdims=True)

        gap = {"what": "onnxruntime int8 (onnx/model_quantized.onnx) vs f32 (onnx/model.onnx)",
               "seq_len": args.seq_lens[0], "rows": int(f.shape[0]),
               "max_abs_dlogit": float(np.abs(f - q).max()),
               "max_abs_dprob": float(np.abs(softmax(f) - softmax(q)).max()),
               "max_abs_logit_f32": float(np.abs(f).max())}
        print(f"bench_native.py: onnxruntime int8 vs f32 max |logit difference| {gap['max_abs_dlogit']:.2e} "
              f"(|probability| {gap['max_abs_dprob']:.2e}; f32 logits up to {gap['max_abs_logit_f32']:.2e}): "
              "quantization noise, recorded, not checked", file=sys.stderr)
        print(json.dumps({"deviation": gap}), flush=True)
    if "f32" in logits:
        diff = float(np.abs(a - logits["f32"]).max())
        print(f"bench_native.py: PyTorch vs onnxruntime max |logit difference| {diff:.2e}", file=sys.stderr)
        if diff > 1e-3:
            sys.exit(f"bench_native.py: the ONNX export disagrees with PyTorch by {diff:.2e} (> 1e-3)")


def unavailable(args):
    print(json.dumps({"runtime": args.runtime, "backend": args.backend, "precision": args.precision,
                      "threads": args.threads, "unavailable": args.reason}), flush=True)


NOT_AVAILABLE = "not available in this build"


def table(args):
    """Prints the figures of one scripts/bench.sh run (a JSON-lines file) as Markdown tables,
    one row per runtime and precision, one column per sequence length x batch size, with the
    ratios the issues judge by: natively the CLI against PyTorch CPU and against onnxruntime at
    the same precision (f32 with f32, int8 with onnxruntime's int8 file); in the browser
    tabprobe's worker against transformers.js at the same thread count and on one thread, f32
    against transformers.js' fp32 and int8 against its q8 (its default on wasm). Rows recorded
    as unavailable read "not available in this build"."""
    rows, head, gaps, missing = [], {}, [], {}
    with open(args.figures, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if "deviation" in r:
                gaps.append(r["deviation"])
            elif "runtime" not in r:
                head.update(r)
            elif "unavailable" in r:
                missing[(r["runtime"], r["backend"], r.get("precision", "f32"))] = r["unavailable"]
            else:
                rows.append(r)
    # Each row's median per round (rows without a round, the browser's, are round 1).
    rounds = collections.defaultdict(dict)
    for r in rows:
        key = (r["runtime"], r["backend"], r.get("precision", "f32"), r["threads"], r["seq_len"], r["batch_size"])
        rounds[key][r.get("round", 1)] = r["median"]
    by = {key: statistics.median(per_round.values()) for key, per_round in rounds.items()}
    most_rounds = max((len(v) for v in rounds.values()), default=1)
    t = head.get("threads", 1)
    shapes = sorted({(r["seq_len"], r["batch_size"]) for r in rows})
    notes = []

    def line(label, cells):
        print(f"| {label} | {' | '.join(cells)} |")

    def row(label, runtime, backend, precision, threads):
        if not any(k[:4] == (runtime, backend, precision, threads) for k in by) and (runtime, backend, precision) in missing:
            notes.append(f"{label}: {missing[(runtime, backend, precision)]}")
            line(label, [NOT_AVAILABLE] * len(shapes))
            return
        cells = []
        for n, b in shapes:
            v = by.get((runtime, backend, precision, threads, n, b))
            cells.append("–" if v is None else f"{v:.2f}")
        line(label, cells)

    def ratio(label, a, b):
        cells = []
        for n, s in shapes:
            x, y = by.get(a + (n, s)), by.get(b + (n, s))
            if x is None or not y:
                cells.append("–")
                continue
            cell = f"**{x / y:.2f}×**"
            # The rounds' own ratios: each side measured within minutes of the other.
            ra, rb = rounds[a + (n, s)], rounds[b + (n, s)]
            own = sorted(ra[k] / rb[k] for k in ra.keys() & rb.keys() if rb[k])
            if len(own) > 1:
                cell += f" ({own[0]:.2f}–{own[-1]:.2f})"
            cells.append(cell)
        line(f"**{label}**", cells)

    def header(title):
        print(f"\n{title}:\n")
        line("examples/s", [f"{n} tokens, batch {b}" for n, b in shapes])
        print("|---|" + "---:|" * len(shapes))

    print(f"\n{head.get('date', '?')}, {head.get('machine', '?')}, {head.get('cores', '?')} cores, "
          f"{t} threads, commit {head.get('commit', '?')}; examples/s, median of the repeats"
          + (f"; native rows: the median of {most_rounds} rounds' medians, each ratio with the range of the rounds' own"
             if most_rounds > 1 else ""))
    header(f"Native (CPU), {t} threads")
    cli = lambda p: ("tabprobe-cli", "flex", p, t)
    pt, ox = ("pytorch-cpu", "cpu", "f32", t), lambda p: ("onnxruntime-cpu", "cpu", p, t)
    row("tabprobe CLI (`flex`), f32", *cli("f32"))
    row("tabprobe CLI (`flex`), int8", *cli("int8"))
    row("PyTorch CPU, f32", *pt)
    row("onnxruntime CPU, f32", *ox("f32"))
    row("onnxruntime CPU, int8 (transformers.js' q8 file)", *ox("int8"))
    ratio("CLI f32 ÷ PyTorch", cli("f32"), pt)
    ratio("CLI f32 ÷ onnxruntime f32", cli("f32"), ox("f32"))
    ratio("CLI int8 ÷ onnxruntime int8", cli("int8"), ox("int8"))
    ratio("CLI int8 ÷ CLI f32", cli("int8"), cli("f32"))

    for backend in ("cpu", "webgpu"):
        if not any(r["backend"] == backend and r["runtime"] in ("tabprobe", "transformers.js") for r in rows) and not any(
            k[1] == backend and k[0] in ("tabprobe", "transformers.js") for k in missing
        ):
            continue
        header(f"Chromium, {'CPU path (wasm)' if backend == 'cpu' else 'WebGPU'}")
        workers = sorted({r["threads"] for r in rows if r["runtime"] == "tabprobe" and r["backend"] == backend}) or [1]
        precisions = ("f32", "int8") if backend == "cpu" else ("f32",)
        for p in precisions:
            if not any(r["runtime"] == "tabprobe" and r["backend"] == backend and r.get("precision", "f32") == p for r in rows):
                row(f"tabprobe worker, {p}", "tabprobe", backend, p, None)
                continue
            for w in workers:
                row(f"tabprobe worker, {p}, {w} worker{'s' if w > 1 else ''}", "tabprobe", backend, p, w)
        dtypes = (("f32", "fp32"), ("q8", "q8")) if backend == "cpu" else (("f32", "fp32"),)
        tjs_threads = sorted({1, t}) if backend == "cpu" else [t]
        for p, dtype in dtypes:
            for n_threads in tjs_threads:
                row(f"transformers.js, dtype {dtype}, {n_threads} thread{'s' if n_threads > 1 else ''}",
                    "transformers.js", backend, p, n_threads)
        for p, q, dtype in (("int8", "q8", "q8"), ("f32", "f32", "fp32")):
            if p not in precisions:
                continue
            mine = sorted({r["threads"] for r in rows if r["runtime"] == "tabprobe" and r["backend"] == backend
                           and r.get("precision", "f32") == p}) or [max(workers)]
            w = mine[-1]
            ratio(f"tabprobe {p} ({w} worker{'s' if w > 1 else ''}) ÷ transformers.js {dtype} ({t} thread{'s' if t > 1 else ''})",
                  ("tabprobe", backend, p, w), ("transformers.js", backend, q, t))
            if backend == "cpu":
                ratio(f"tabprobe {p} (1 worker) ÷ transformers.js {dtype} (1 thread)",
                      ("tabprobe", backend, p, 1), ("transformers.js", backend, q, 1))
    if notes:
        print()
        for n in notes:
            print(f"- {n}")
    for g in gaps:
        print(f"\n{g['what']}, the same {g['rows']} rows of {g['seq_len']} tokens: max |Δlogit| "
              f"{g['max_abs_dlogit']:.2e}, max |Δprobability| {g['max_abs_dprob']:.2e} "
              f"(f32 logits up to {g['max_abs_logit_f32']:.2e}; quantization noise, not checked)")


def ints(text):
    return [int(x) for x in text.split(",") if x]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("model")
    p.add_argument("--seq-lens", type=ints, default=[128])
    m = sub.add_parser("measure")
    m.add_argument("model")
    m.add_argument("--seq-lens", type=ints, default=[128])
    m.add_argument("--batch-sizes", type=ints, default=[1, 8])
    m.add_argument("--threads", type=int, default=os.cpu_count())
    m.add_argument("--repeats", type=int, default=3)
    m.add_argument("--ort-precisions", type=lambda v: [x for x in v.split(",") if x], default=["f32", "int8"],
                   help="onnxruntime's files: f32 (onnx/model.onnx) and/or int8 (onnx/model_quantized.onnx)")
    m.add_argument("--round", type=int, default=1,
                   help="which of scripts/bench.sh's rounds this is, recorded on every row; the outputs' checks run in round 1")
    u = sub.add_parser("unavailable")
    for name in ("runtime", "backend", "precision"):
        u.add_argument(name)
    u.add_argument("threads", type=int)
    u.add_argument("reason")
    tb = sub.add_parser("table")
    tb.add_argument("figures", help="a JSON-lines file written by scripts/bench.sh")
    args = ap.parse_args()
    {"prepare": prepare, "measure": measure, "unavailable": unavailable, "table": table}[args.command](args)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""scripts/bench.sh's Python side (a benchmark, not a test).

  prepare  MODEL --seq-lens 128,256
      Exports the checkpoint folder MODEL (a random roberta-base-shaped model written by
      crates/model/tests/golden/make_golden.py --no-golden) to ONNX with torch.onnx, as
      MODEL/onnx/model.onnx (what transformers.js loads with dtype fp32), and writes
      MODEL/bench-inputs.json: for each sequence length one premise/hypothesis pair that the
      checkpoint's own tokenizer encodes to exactly that many tokens (specials included), so
      every runtime in the benchmark reads the same text and the same token count.

  measure  MODEL --seq-lens 128 --batch-sizes 1,8 --threads 2 --repeats 3
      PyTorch CPU (eager, sdpa attention) and onnxruntime (CPU, MLAS) on the same checkpoint:
      examples/s per sequence length x batch size, the median of --repeats timed calls after
      one warm-up call. Inputs are pre-tokenized, as in `tabprobe bench`. One JSON object per
      line on stdout: {"runtime", "backend", "threads", "seq_len", "batch_size", "median", "best"}.

  table  FIGURES
      The Markdown table of one scripts/bench.sh run, with the ratios.
"""

import argparse
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
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

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
        return
    os.makedirs(os.path.dirname(out), exist_ok=True)
    model = AutoModelForSequenceClassification.from_pretrained(args.model, attn_implementation="eager").eval()
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
    session = ort.InferenceSession(
        os.path.join(args.model, "onnx", "model.onnx"), opts, providers=["CPUExecutionProvider"]
    )
    for n in args.seq_lens:
        for b in args.batch_sizes:
            ids, mask = synthetic_ids(n, b)
            t_ids, t_mask = torch.from_numpy(ids), torch.from_numpy(mask)

            def run_torch():
                with torch.inference_mode():
                    model(input_ids=t_ids, attention_mask=t_mask)

            def run_ort():
                session.run(["logits"], {"input_ids": ids, "attention_mask": mask})

            for name, call in (("pytorch-cpu", run_torch), ("onnxruntime-cpu", run_ort)):
                median, best = timed(call, b, args.repeats)
                print(json.dumps({"runtime": name, "backend": "cpu", "threads": args.threads,
                                  "seq_len": n, "batch_size": b,
                                  "median": round(median, 3), "best": round(best, 3)}), flush=True)
    # Same model, same input: the two runtimes must agree, or the comparison is void.
    ids, mask = synthetic_ids(args.seq_lens[0], 2)
    with torch.inference_mode():
        a = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).logits.numpy()
    b = session.run(["logits"], {"input_ids": ids, "attention_mask": mask})[0]
    diff = float(np.abs(a - b).max())
    print(f"bench_native.py: PyTorch vs onnxruntime max |logit difference| {diff:.2e}", file=sys.stderr)
    if diff > 1e-3:
        sys.exit(f"bench_native.py: the ONNX export disagrees with PyTorch by {diff:.2e} (> 1e-3)")


def table(args):
    """Prints the figures of one scripts/bench.sh run (a JSON-lines file) as a Markdown table
    with the ratios the issue judges by: the CLI against PyTorch CPU, the browser worker
    against transformers.js at the same thread count and on one thread."""
    rows, head = [], {}
    with open(args.figures, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            (rows.append(r) if "runtime" in r else head.update(r))
    by = {}
    for r in rows:
        by[(r["runtime"], r["backend"], r["threads"], r["seq_len"], r["batch_size"])] = r["median"]
    t = head.get("threads", 1)
    shapes = sorted({(r["seq_len"], r["batch_size"]) for r in rows})
    worker_threads = sorted({r["threads"] for r in rows if r["runtime"] == "tabprobe"}) or [1]

    def cell(*key):
        v = by.get(key)
        return "–" if v is None else f"{v:.2f}"

    def ratio(a, b):
        a, b = by.get(a), by.get(b)
        return "–" if a is None or not b else f"{a / b:.2f}×"

    print(f"\n{head.get('date', '?')}, {head.get('machine', '?')}, {head.get('cores', '?')} cores, "
          f"{t} threads, commit {head.get('commit', '?')}; examples/s, median of the repeats\n")
    print("Native (CPU):\n")
    print("| seq | batch | tabprobe CLI (flex) | PyTorch CPU | onnxruntime | CLI ÷ PyTorch | CLI ÷ onnxruntime |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, b in shapes:
        cli, pt, ox = ("tabprobe-cli", "flex", t, n, b), ("pytorch-cpu", "cpu", t, n, b), ("onnxruntime-cpu", "cpu", t, n, b)
        print(f"| {n} | {b} | {cell(*cli)} | {cell(*pt)} | {cell(*ox)} | {ratio(cli, pt)} | {ratio(cli, ox)} |")
    for backend in ("cpu", "webgpu"):
        if not any(r["backend"] == backend and r["runtime"] in ("tabprobe", "transformers.js") for r in rows):
            continue
        workers = sorted({r["threads"] for r in rows if r["runtime"] == "tabprobe" and r["backend"] == backend}) or [1]
        names = [f"tabprobe, {w} worker{'s' if w > 1 else ''}" for w in workers]
        print(f"\nChromium, {'CPU path (wasm)' if backend == 'cpu' else 'WebGPU'}:\n")
        print(f"| seq | batch | {' | '.join(names)} | transformers.js, 1 thread | transformers.js, {t} threads "
              f"| tabprobe ({workers[-1]}) ÷ transformers.js ({t}) | tabprobe (1) ÷ transformers.js (1) |")
        print("|---:|---:|" + "---:|" * (len(workers) + 4))
        for n, b in shapes:
            tps = [("tabprobe", backend, w, n, b) for w in workers]
            j1, jt = ("transformers.js", backend, 1, n, b), ("transformers.js", backend, t, n, b)
            cells = " | ".join(cell(*k) for k in tps)
            print(f"| {n} | {b} | {cells} | {cell(*j1)} | {cell(*jt)} | {ratio(tps[-1], jt)} | {ratio(tps[0], j1)} |")


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
    tb = sub.add_parser("table")
    tb.add_argument("figures", help="a JSON-lines file written by scripts/bench.sh")
    args = ap.parse_args()
    {"prepare": prepare, "measure": measure, "table": table}[args.command](args)


if __name__ == "__main__":
    main()

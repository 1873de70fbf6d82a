#!/usr/bin/env python3
"""Golden parity fixtures for the model families besides RoBERTa (issue 16).

Creates a tiny *random* `…ForSequenceClassification` of each family with Hugging Face
`transformers` (nothing is downloaded from any hub) — BERT, DistilBERT, ELECTRA (embedding width
16 < hidden 32, so the projection is used), XLM-RoBERTa, DeBERTa-v3 (relative attention with 32
log buckets at lengths up to 96, shared keys, no absolute positions), a DeBERTa-v2-style one
(absolute positions, token types, separate position projections, no buckets) and BART — with a tokenizer
trained on the demo dataset's text, saves each as a Hugging Face folder, and writes the
reference token ids, type ids, truncation and logits that `crates/model/tests/families.rs` and
`tests/browser/families.test.mjs` compare against.

Outputs (in `families/` next to this script; commit them unchanged):
  <family>/     config.json, model.safetensors, tokenizer.json, tokenizer_config.json
  bert-bin/     the BERT weights as pytorch_model.bin only (torch.save of the state dict)
  golden.json   pairs (those of ../golden.json), and per family: ids, type ids (where the
                family's tokenizer returns them), truncation, logits and probabilities for
                premise-first pairs, and the same for hypothesis-first pairs (8 + the empty
                premise); parameter_count is sum(p.numel() for p in model.parameters())

References are float32, eager attention, one pair at a time (no padding), from the folder
loaded back with AutoTokenizer / AutoModelForSequenceClassification. tokenizer.json is
rewritten from the loaded tokenizer's backend, because transformers 5 builds some classes'
pipelines itself (XLMRobertaTokenizer ignores tokenizer.json's normalizer and pre-tokenizer):
the folder then holds exactly the pipeline transformers runs. Each family is also run in
float64, and the script fails if float32 drifts more than 5e-5 from it (the fixture would then
be too ill-conditioned for a 1e-4 parity bar; BART's attention is kept unit-scale for that).
The tokenizer trainers are multi-threaded, so two runs can differ in the vocabulary; the
committed files are one run, consistent with themselves.

Usage (from the repository root; torch, transformers, tokenizers, safetensors from PyPI, pins
in scripts/requirements-interop.txt):
  python3 crates/model/tests/golden/make_golden_families.py
"""
import hashlib, json, os, random, sys
import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer, models, pre_tokenizers, decoders, processors, trainers, normalizers
import transformers as tf

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "families")
SEED = 20261123
MAX = 96
g = json.load(open(os.path.join(HERE, "golden.json"), encoding="utf-8"))
pairs = [{"premise": p["premise"], "hypothesis": p["hypothesis"]} for p in g["pairs"]]
ds = json.load(open(os.path.join(REPO, "public", "demo", "dataset.json"), encoding="utf-8"))

def lin(t):
    return " ".join(f"The {r['key']} of {t['title']} {'are' if len(r['values'])>1 else 'is'} {', '.join(r['values'])}." for r in t["rows"])
texts = [lin(t) for t in ds["tables"]] + [e["hypothesis"] for e in ds["examples"]]

def wordpiece():
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=1000, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return tok

def unigram(specials, template):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.Replace("``", '"')])
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(texts, trainers.UnigramTrainer(vocab_size=1000, special_tokens=specials, unk_token=specials[3] if template == "deberta" else "<unk>", show_progress=False))
    if template == "deberta":
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    else:
        tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True, add_prefix_space=False)
    return tok

def bpe():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=1000, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True, add_prefix_space=False)
    return tok

def randomize(model, gen):
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "LayerNorm.weight" in name or "layer_norm.weight" in name or "layernorm_embedding.weight" in name:
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=gen))
            elif name.endswith("bias"):
                p.copy_(0.1 * torch.randn(p.shape, generator=gen))
            else:
                # Sharper attention and a wider logit spread show position, mask and head
                # mistakes; BART's attention output projections stay unit-scale (sharp q/k/out in all ten
                # attention blocks made float32 itself drift 1.3e-4 from float64).
                sharp = any(k in name for k in ("query", "key", "q_lin", "k_lin", "q_proj", "k_proj", "classifier", "classification_head.out_proj")) or (name.endswith("out_proj.weight") and "attn" not in name)
                if "attn." in name:  # BART: every attention block unit-scale (see above)
                    sharp = False
                p.copy_((3.0 if sharp else 1.0) * torch.randn(p.shape, generator=gen) / p.shape[-1] ** 0.5)

def main():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    common = dict(attn_implementation="eager")
    specs = {
        "bert": (tf.BertConfig(vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=MAX, type_vocab_size=2, id2label={0: "entailment", 1: "neutral", 2: "contradiction"}, **common), tf.BertForSequenceClassification, wordpiece, "BertTokenizerFast"),
        "distilbert": (tf.DistilBertConfig(vocab_size=1000, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=MAX, id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, **common), tf.DistilBertForSequenceClassification, wordpiece, "DistilBertTokenizerFast"),
        "electra": (tf.ElectraConfig(vocab_size=1000, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=MAX, id2label={0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, **common), tf.ElectraForSequenceClassification, wordpiece, "ElectraTokenizerFast"),
        "xlm-roberta": (tf.XLMRobertaConfig(vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=MAX + 2, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2, layer_norm_eps=1e-5, id2label={0: "contradiction", 1: "neutral", 2: "entailment"}, **common), tf.XLMRobertaForSequenceClassification, lambda: unigram(["<s>", "<pad>", "</s>", "<unk>", "<mask>"], "roberta"), "XLMRobertaTokenizerFast"),
        "deberta-v3": (tf.DebertaV2Config(vocab_size=1000, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=MAX, type_vocab_size=0, relative_attention=True, position_buckets=32, max_relative_positions=-1, pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm", share_att_key=True, position_biased_input=False, pad_token_id=0, id2label={0: "contradiction", 1: "entailment", 2: "neutral"}, **common), tf.DebertaV2ForSequenceClassification, lambda: unigram(["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"], "deberta"), "DebertaV2TokenizerFast"),
        # DeBERTa-v2 style: absolute positions and token types added, separate position
        # projections (pos_key_proj / pos_query_proj), no log buckets (distances clamped at
        # 40 < 96 tokens), "p2c|c2p" as a string, narrower embeddings projected (embed_proj).
        "deberta-v2": (tf.DebertaV2Config(vocab_size=1000, hidden_size=32, embedding_size=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=MAX, type_vocab_size=2, relative_attention=True, position_buckets=-1, max_relative_positions=40, pos_att_type="p2c|c2p", norm_rel_ebd="none", share_att_key=False, position_biased_input=True, pad_token_id=0, id2label={0: "entailment", 1: "neutral", 2: "contradiction"}, **common), tf.DebertaV2ForSequenceClassification, lambda: unigram(["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"], "deberta"), "DebertaV2TokenizerFast"),
        "bart": (tf.BartConfig(vocab_size=1000, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=MAX, scale_embedding=False, pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, id2label={0: "contradiction", 1: "neutral", 2: "entailment"}, **common), tf.BartForSequenceClassification, bpe, "BartTokenizerFast"),
    }
    out = {"generator": "crates/model/tests/golden/make_golden_families.py", "torch": torch.__version__, "transformers": tf.__version__, "pairs": pairs, "families": {}}
    for name, (config, cls, make_tok, tok_cls) in specs.items():
        d = os.path.join(OUT, name)
        os.makedirs(d, exist_ok=True)
        raw = make_tok()
        raw.save(os.path.join(d, "tokenizer.json"))
        model = cls(config).eval()
        randomize(model, gen)
        model.save_pretrained(d)
        if name == "bert":
            b = os.path.join(OUT, "bert-bin"); os.makedirs(b, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(b, "pytorch_model.bin"))
            config.save_pretrained(b); raw.save(os.path.join(b, "tokenizer.json"))
        specials = {"bert": dict(cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]", mask_token="[MASK]"),
                    "deberta": dict(cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]", mask_token="[MASK]", bos_token="[CLS]", eos_token="[SEP]"),
                    "roberta": dict(bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>")}
        kind = "bert" if name in ("bert", "distilbert", "electra") else "deberta" if name.startswith("deberta") else "roberta"
        hf_tok = getattr(tf, tok_cls)(tokenizer_object=raw, model_max_length=MAX, **specials[kind])
        hf_tok.save_pretrained(d)
        tok = tf.AutoTokenizer.from_pretrained(d)
        # transformers 5 builds some classes' pipelines itself (XLMRobertaTokenizer: no
        # normalizer, WhitespaceSplit + Metaspace) whatever tokenizer.json says; the folder gets
        # the pipeline transformers actually runs, so tabprobe reads exactly that.
        tok.backend_tokenizer.save(os.path.join(d, "tokenizer.json"))
        if name == "bert":
            tok.backend_tokenizer.save(os.path.join(OUT, "bert-bin", "tokenizer.json"))
        tok = tf.AutoTokenizer.from_pretrained(d)
        print(name, "tokenizer class", type(tok).__name__)
        ref = tf.AutoModelForSequenceClassification.from_pretrained(d, attn_implementation="eager").eval()
        def enc(a, b, trunc):
            kw = dict(truncation=trunc, max_length=MAX) if trunc else {}
            e = tok(a, b, **kw) if b is not None else tok(a, **kw)
            full = tok(a, b) if b is not None else tok(a)
            return {"input_ids": e["input_ids"], "token_type_ids": e.get("token_type_ids"), "truncated": len(full["input_ids"]) > MAX, "premise_tokens_dropped": len(full["input_ids"]) - len(e["input_ids"])}
        pf = [enc(p["premise"], p["hypothesis"], "only_first") for p in pairs]
        empty = [i for i, p in enumerate(pairs) if p["premise"] == ""]
        hidx = list(range(8)) + empty
        hf = [enc(pairs[i]["hypothesis"], pairs[i]["premise"] or None, "only_second" if pairs[i]["premise"] else False) for i in hidx]
        # raw tokenizers agree (no truncation)
        raw_file = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        for p in pairs:
            r = raw_file.encode(p["premise"], p["hypothesis"])
            full = tok(p["premise"], p["hypothesis"])
            assert r.ids == full["input_ids"], name
            if "token_type_ids" in full:
                assert r.type_ids == full["token_type_ids"], name
        @torch.no_grad()
        def logits(encs):
            outs = []
            for e in encs:
                kw = {"input_ids": torch.tensor([e["input_ids"]])}
                if e["token_type_ids"] is not None: kw["token_type_ids"] = torch.tensor([e["token_type_ids"]])
                outs.append(ref(**kw).logits[0].float().tolist())
            return outs
        lp, lh = logits(pf), logits(hf)
        m64 = tf.AutoModelForSequenceClassification.from_pretrained(d, attn_implementation="eager").eval().double()
        with torch.no_grad():
            def run64(e):
                kw = {"input_ids": torch.tensor([e["input_ids"]])}
                if e["token_type_ids"] is not None: kw["token_type_ids"] = torch.tensor([e["token_type_ids"]])
                return m64(**kw).logits[0]
            drift = max((run64(e) - torch.tensor(l, dtype=torch.float64)).abs().max().item() for e, l in zip(pf, lp))
        assert drift < 5e-5, (name, "float32 drifts from float64 by", drift)
        wfile = os.path.join(d, "model.safetensors")
        out["families"][name] = {
            "dir": name, "model_type": config.model_type, "architecture": cls.__name__,
            "weights_sha256": hashlib.sha256(open(wfile, "rb").read()).hexdigest(),
            "id2label": {str(k): v for k, v in config.id2label.items()}, "max_length": MAX,
            "parameter_count": sum(p.numel() for p in ref.parameters()),
            "premise_first": pf, "logits": lp, "probs": torch.softmax(torch.tensor(lp), -1).tolist(),
            "hypothesis_first": {"indices": hidx, "encodings": hf, "logits": lh},
        }
        out["families"][name]["float64_drift"] = drift
        print(name, "drift", drift, sum(e["truncated"] for e in pf), "truncated", out["families"][name]["parameter_count"], os.path.getsize(wfile))
    with open(os.path.join(OUT, "golden.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")

main()

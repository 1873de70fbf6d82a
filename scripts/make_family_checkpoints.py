#!/usr/bin/env python3
"""Base-shaped random checkpoints of the non-RoBERTa families, for `tabprobe bench` only.

bert-base, distilbert-base, deberta-v3-base and bart-base shapes with transformers' own random
initialisation (weight values do not change speed) and the tiny fixtures' tokenizers (bench feeds
synthetic token ids). Needs torch and transformers (scripts/requirements-interop.txt).

Usage: python3 scripts/make_family_checkpoints.py [OUT]   (default /tmp/tabprobe-base-families)
"""
import json, os, shutil, sys
import transformers as tf
HERE = os.path.dirname(os.path.abspath(__file__))
FAM = os.path.join(HERE, "..", "crates", "model", "tests", "golden", "families")
OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tabprobe-base-families"
three = {0: "contradiction", 1: "neutral", 2: "entailment"}
specs = {
  "bert-base": (tf.BertConfig(id2label=three), tf.BertForSequenceClassification, "bert"),
  "distilbert-base": (tf.DistilBertConfig(id2label=three), tf.DistilBertForSequenceClassification, "distilbert"),
  "deberta-v3-base": (tf.DebertaV2Config(vocab_size=128100, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072, max_position_embeddings=512, type_vocab_size=0, relative_attention=True, position_buckets=256, max_relative_positions=-1, pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm", share_att_key=True, position_biased_input=False, layer_norm_eps=1e-7, id2label=three), tf.DebertaV2ForSequenceClassification, "deberta-v3"),
  "bart-base": (tf.BartConfig(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072, max_position_embeddings=1024, id2label=three), tf.BartForSequenceClassification, "bart"),
}
for name, (cfg, cls, fixture) in specs.items():
    d = os.path.join(OUT, name)
    m = cls(cfg).eval()
    m.save_pretrained(d)
    shutil.copy(os.path.join(FAM, fixture, "tokenizer.json"), d)
    print(name, sum(p.numel() for p in m.parameters()))

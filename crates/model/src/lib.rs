//! RoBERTa-family NLI sequence classifier in burn (being built: see issue 3).

//! A premise as its sentence units: the text a model reads, and where each unit (a row's
//! sentence, a template's row) begins and ends in it. The word-order probe (UNLI §4)
//! permutes words within units, so the units must be the ones the linearizer built, not a
//! guess from punctuation ("Martin Luther King Jr." holds a period that ends nothing).

use std::ops::Range;

use crate::linearize::sentences::sentence_spans;

/// A premise text with the byte span of each of its sentence units, in order and not
/// overlapping. Text between units is separator only (spaces, the trailing space of the
/// INFOTABS paragraph).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PremiseUnits {
    /// The premise, byte for byte what [`super::linearize`] returns.
    pub text: String,
    /// Byte ranges of the units in `text`.
    pub spans: Vec<Range<usize>>,
}

impl PremiseUnits {
    /// `parts` joined by `sep`, with `end` after the last one (when there is one): each part
    /// is a unit.
    pub(crate) fn joined(parts: &[String], sep: &str, end: &str) -> PremiseUnits {
        let mut text = String::new();
        let mut spans = Vec::with_capacity(parts.len());
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                text.push_str(sep);
            }
            spans.push(text.len()..text.len() + p.len());
            text.push_str(p);
        }
        if !parts.is_empty() {
            text.push_str(end);
        }
        PremiseUnits { text, spans }
    }

    /// A plain-text premise split into sentences by [`crate::linearize::sentences::sentence_spans`],
    /// which does not split after common abbreviations or initials.
    pub fn plain(text: &str) -> PremiseUnits {
        PremiseUnits {
            text: text.to_string(),
            spans: sentence_spans(text),
        }
    }

    /// The whole text as a single unit (a linearization without sentences), or no unit when
    /// it is blank.
    pub fn single(text: String) -> PremiseUnits {
        let spans = if text.trim().is_empty() {
            Vec::new()
        } else {
            // One span covering the whole text (not the indices 0..len).
            std::iter::once(0..text.len()).collect()
        };
        PremiseUnits { text, spans }
    }

    /// The units' texts, in order.
    pub fn units(&self) -> Vec<&str> {
        self.spans
            .iter()
            .filter_map(|r| self.text.get(r.clone()))
            .collect()
    }

    /// The text with unit `i` replaced by `replacements[i]` and everything between units
    /// kept. Units without a replacement stay as they are.
    pub fn replace_units(&self, replacements: &[String]) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for (i, r) in self.spans.iter().enumerate() {
            out.push_str(self.text.get(at..r.start).unwrap_or_default());
            match replacements.get(i) {
                Some(new) => out.push_str(new),
                None => out.push_str(self.text.get(r.clone()).unwrap_or_default()),
            }
            at = r.end;
        }
        out.push_str(self.text.get(at..).unwrap_or_default());
        out
    }
}

//! What tabprobe is, where its data comes from, the licences it is used under, and the cards
//! of the two bundled demo models.

use std::time::Duration;

use leptos::prelude::*;
use tabprobe_core::report::glossary::GLOSSARY;

/// Scrolls to the glossary entry `#/about/<anchor>` names, once the page is drawn (after the
/// navigation's scroll to the top).
fn scroll_to_entry() {
    set_timeout(
        || {
            let Some(w) = web_sys::window() else { return };
            let hash = w.location().hash().unwrap_or_default();
            let Some(anchor) = hash.strip_prefix("#/about/") else {
                return;
            };
            if let Some(el) = w.document().and_then(|d| d.get_element_by_id(anchor)) {
                el.scroll_into_view();
            }
        },
        Duration::from_millis(0),
    );
}

/// The results' vocabulary, from core's glossary: docs/probes-and-metrics.md's "Glossary" section, entry for
/// entry, under the same anchors.
fn glossary() -> impl IntoView {
    let entries = GLOSSARY
        .iter()
        .map(|t| {
            let keys = t.keys.join(", ");
            view! {
                <dt id=t.anchor data-testid="glossary-entry">{t.name}" "<code>{keys}</code></dt>
                <dd>{t.line}</dd>
            }
        })
        .collect_view();
    view! {
        <h2 id="glossary">"Glossary of the results"</h2>
        <p>"Every share in the results is a percentage (0–100), shown with %; κ, entropy (nats) and BLEU-2 keep their own scales. The same entries are in docs/probes-and-metrics.md's Glossary section, in the repository."</p>
        <dl class="glossary" data-testid="glossary">{entries}</dl>
    }
}

/// The model cards of the bundled demo models (`public/models/<id>/README.md`, written by
/// `tabprobe evaluate --card`), embedded at build time so the page shows exactly the measured
/// facts shipped beside the weights. Shown as plain text: Leptos escapes it, nothing is parsed.
const MODEL_CARDS: [(&str, &str); 2] = [
    (
        "infotabs-full",
        include_str!("../../public/models/infotabs-full/README.md"),
    ),
    (
        "infotabs-hypothesis-only",
        include_str!("../../public/models/infotabs-hypothesis-only/README.md"),
    ),
];

/// The About page: purpose, papers, data credits, demo model cards.
#[component]
pub fn AboutView() -> impl IntoView {
    scroll_to_entry();
    let handle = window_event_listener(leptos::ev::hashchange, |_| scroll_to_entry());
    on_cleanup(move || handle.remove());
    view! {
        <article class="about" data-testid="about">
            <h1>"About tabprobe"</h1>
            <p>
                "tabprobe asks one question of a natural-language-inference model over tables: "
                <em>"is it using the right evidence?"</em>
                " It runs entirely in your browser; nothing you load leaves your machine."
            </p>
            <h2>"Papers"</h2>
            <ul>
                <li>"Gupta, Bhat, Ghosal, Shrivastava, Singh, Srikumar. "<em>"Is My Model Using the Right Evidence? Systematic Probes for Examining Evidence-Based Tabular Reasoning."</em>" TACL 2022."</li>
                <li>"Sinha, Parthasarathi, Pineau, Williams. "<em>"UnNatural Language Inference."</em>" ACL 2021."</li>
                <li>"Chen et al. "<em>"TabFact: A Large-scale Dataset for Table-based Fact Verification."</em>" ICLR 2020."</li>
                <li>"Joshi et al. "<em>"TaxiNLI: Taking a Ride up the NLU Hill."</em>" CoNLL 2020."</li>
            </ul>
            <h2>"Data and licences"</h2>
            <ul data-testid="credits">
                <li>
                    <strong>"INFOTABS"</strong>
                    " (Gupta, Mehta, Nokhiz, Srikumar, ACL 2020), Apache-2.0. The bundled demo dataset is built from its dev tables and hypotheses, with its expert reasoning categories, plus the paper's running examples "
                    <em>"Breakfast in America"</em>" (T1264) and "<em>"Bridesmaids"</em>" (T996)."
                </li>
                <li><strong>"The probing paper's counterfactual data"</strong>" (utahnlp/table_probing), Apache-2.0."</li>
                <li><strong>"TabPert"</strong>" (Jain et al., EMNLP 2021 demo), Apache-2.0."</li>
                <li>"The tables of all three come from Wikipedia infoboxes, licensed CC BY-SA."</li>
            </ul>
            <h2>"Demo models"</h2>
            <p data-testid="demo-models-note">
                "The two bundled models were trained by tabprobe itself, from scratch, on INFOTABS train, with its own Rust trainer: no pretrained weights could be fetched. "
                "They are weak models, and the probes are meant to show exactly how they fail. Their cards, with the accuracies as measured:"
            </p>
            {MODEL_CARDS
                .iter()
                .map(|(id, card)| {
                    view! {
                        <section class="model-card" data-testid={format!("model-card-{id}")}>
                            <pre>{*card}</pre>
                        </section>
                    }
                })
                .collect_view()}
            <h2>"Dataset format"</h2>
            <p>
                "Datasets are JSON files, format version 1, described by a JSON Schema: "
                <a href="schema/dataset-v1.json" data-testid="schema-link">"schema/dataset-v1.json"</a>"."
            </p>
            <h2>"Probing a model this site cannot run"</h2>
            <p>
                "Download the pairs (probe runner) writes every pair a probe set scores, one JSON line each ("
                <a href="schema/pairs-v1.json" data-testid="schema-pairs-link">"schema/pairs-v1.json"</a>
                "); score them with any model elsewhere and import the scores (model bar, Import scores…), one JSON line per pair ("
                <a href="schema/scores-v1.json" data-testid="schema-scores-link">"schema/scores-v1.json"</a>
                "). The repository's docs/scoring-elsewhere.md and scorers/ (Hugging Face transformers, any OpenAI-compatible chat endpoint) say how."
            </p>
            {glossary()}
        </article>
    }
}

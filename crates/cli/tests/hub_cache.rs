//! `--model org/name` read offline from a Hugging Face cache laid out here as
//! `huggingface_hub` writes it (issue 36, item 4): `refs/<revision>` names a commit, the
//! snapshot folder holds links to `blobs/`; HF_HUB_CACHE, then HF_HOME/hub, then
//! ~/.cache/huggingface/hub. The model predicts exactly what the folder itself predicts, is
//! named `org/name`, and a missing model's error lists where it looked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hub-cache-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Lays the tiny checkpoint out in `hub` as `models--org--name`, the files as blobs named by
/// a digest-like name and linked from the snapshot (as `huggingface_hub` does), with
/// `refs/main` and a `refs/v1` tag both naming the commit.
fn lay_out(hub: &Path, repo: &str) {
    let model = hub.join(format!("models--{}", repo.replace('/', "--")));
    let snapshot = model.join("snapshots").join(COMMIT);
    std::fs::create_dir_all(&snapshot).unwrap();
    std::fs::create_dir_all(model.join("blobs")).unwrap();
    std::fs::create_dir_all(model.join("refs")).unwrap();
    let tiny = manifest().join("../model/tests/golden/tiny-f32");
    for (k, f) in ["config.json", "model.safetensors", "tokenizer.json"]
        .iter()
        .enumerate()
    {
        let blob = model.join("blobs").join(format!("{k:040x}"));
        std::fs::copy(tiny.join(f), &blob).unwrap();
        std::os::unix::fs::symlink(format!("../../blobs/{k:040x}"), snapshot.join(f)).unwrap();
    }
    std::fs::write(model.join("refs").join("main"), COMMIT).unwrap();
    std::fs::write(model.join("refs").join("v1"), format!("{COMMIT}\n")).unwrap();
}

fn predict(model: &str, input: &Path, env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tabprobe"));
    c.args(["predict", "--model", model, "--input"]).arg(input);
    for v in [
        "HF_HUB_CACHE",
        "HUGGINGFACE_HUB_CACHE",
        "HF_HOME",
        "XDG_CACHE_HOME",
    ] {
        c.env_remove(v);
    }
    c.envs(env.iter().map(|(k, v)| (k, v.as_os_str())));
    c.output().unwrap()
}

fn pairs(dir: &Path) -> PathBuf {
    let input = dir.join("pairs.jsonl");
    std::fs::write(
        &input,
        "{\"premise\": \"The sky is blue.\", \"hypothesis\": \"The sky has a colour.\"}\n\
         {\"premise\": \"Breakfast in America was released in 1979.\", \"hypothesis\": \"It came out in the seventies.\"}\n",
    )
    .unwrap();
    input
}

#[test]
fn a_model_name_is_read_from_each_cache_location_as_its_folder() {
    let dir = scratch("found");
    let input = pairs(&dir);
    let tiny = manifest().join("../model/tests/golden/tiny-f32");
    let direct = predict(tiny.to_str().unwrap(), &input, &[("HOME", &dir)]);
    assert!(
        direct.status.success(),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );

    let hub = dir.join("hub-cache");
    lay_out(&hub, "tabprobe-test/tiny-nli");
    let hf_home = dir.join("hf-home");
    lay_out(&hf_home.join("hub"), "tabprobe-test/tiny-nli");
    let home = dir.join("home");
    lay_out(
        &home.join(".cache/huggingface/hub"),
        "tabprobe-test/tiny-nli",
    );
    for (env, name) in [
        (
            vec![("HF_HUB_CACHE", hub.as_path()), ("HOME", dir.as_path())],
            "tabprobe-test/tiny-nli",
        ),
        (
            vec![("HF_HOME", hf_home.as_path()), ("HOME", dir.as_path())],
            "tabprobe-test/tiny-nli@v1",
        ),
        (
            vec![("HOME", home.as_path())],
            &format!("tabprobe-test/tiny-nli@{COMMIT}"),
        ),
    ] {
        let out = predict(name, &input, &env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name} {env:?}: {err}");
        assert_eq!(
            out.stdout, direct.stdout,
            "{name}: the same predictions as the folder"
        );
        // Named as the researcher named it, not by the snapshot's commit folder.
        assert!(err.contains("tabprobe-test/tiny-nli: "), "{err}");
    }
}

#[test]
fn a_missing_model_names_every_place_looked() {
    let dir = scratch("missing");
    let input = pairs(&dir);
    let hub = dir.join("hub-cache");
    lay_out(&hub, "tabprobe-test/tiny-nli");
    let out = predict("tabprobe-test/other", &input, &[("HF_HUB_CACHE", &hub)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("tabprobe-test/other@main is not in the local Hugging Face cache")
            && err.contains(&format!(
                "{} (no such folder)",
                hub.join("models--tabprobe-test--other").display()
            )),
        "{err}"
    );
    // A revision the cache has no ref for.
    let out = predict(
        "tabprobe-test/tiny-nli@v2",
        &input,
        &[("HF_HUB_CACHE", &hub)],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("models--tabprobe-test--tiny-nli/refs/v2 (no such file)"),
        "{err}"
    );
    // A path that does not exist and cannot be a name is still a path.
    let out = predict("./no/such/folder", &input, &[("HF_HUB_CACHE", &hub)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("./no/such/folder: not a folder"), "{err}");
}

"""The daemon's per-hive bookkeeping around the engines: settings that follow a reload,
errors that stay reported until fixed."""

from __future__ import annotations

import os
from pathlib import Path

from horizon.core.settings import GlobalConfig, ProviderConfig
from horizon.core.summarizer import ModelResult
from horizon.service.hive_service import HiveService

BEE = "mia"


def test_a_bee_with_refused_settings_follows_a_new_config_for_its_model_levels(
        tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    (hive / "bees" / f"{BEE}.toml").write_text('modele = "ollama/m"\n')
    with_ollama = GlobalConfig(providers={"ollama": ProviderConfig(url="http://127.0.0.1:9")})
    service = HiveService(hive, with_ollama, "config.json")
    try:
        service.refresh_bees()
        engine = service.bees[BEE].engine
        assert engine is not None and engine.effective.levels == ("ollama/m",)

        (hive / "bees" / f"{BEE}.toml").write_text('modele = "ollama/m"\n[horizon\n')
        service.reconfigure(GlobalConfig())  # the provider is gone from config.json
        assert not service.load_settings(service.bees[BEE])  # the bee's file is broken
        assert engine.effective.modele == "ollama/m", "the last good settings serve"
        assert engine.effective.levels == (), "a provider no longer configured is not asked"
    finally:
        service.close()


def test_a_model_result_does_not_clear_a_refused_journal(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    os.mkfifo(hive / "window" / f"{BEE}-messages.jsonl")
    service = HiveService(hive, GlobalConfig(), "config.json")
    try:
        service.refresh_bees()
        assert service.process(BEE) is None
        error = service.bees[BEE].state_error
        assert error is not None and "not a regular file" in error
        service.apply_model(BEE, ModelResult("condense", [1]))
        assert service.bees[BEE].state_error == error
    finally:
        service.close()

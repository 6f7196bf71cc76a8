"""Each setting is declared once (kg/config.py); the options of kg, kg settings and the
settings tables of README.md and docs/deployment.md say what that declaration says."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner

from kg.cli import main
from kg.config import SETTINGS, Settings, load_settings
from kg.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
HEADER = "| option | variable | default | what |"
NO_KG_ENV = {setting.env: None for setting in SETTINGS.values()}  # None: unset while invoked


def options() -> dict[str, str]:
    """Setting name -> the kg option that sets it."""
    return {p.name: p.opts[0] for p in main.params if p.name in SETTINGS}


def declared() -> dict[str, tuple[str, str, str]]:
    """Variable -> (option, default, help), from the declaration."""
    opts = options()
    return {s.env: (opts.get(s.name, ""), s.shown_default, s.help) for s in SETTINGS.values()}


def documented(path: Path) -> dict[str, tuple[str, str, str]]:
    """Variable -> (option, default, help), from the settings tables of a page (code marks
    dropped: the page may set names in code)."""
    text = path.read_text()
    assert HEADER in text, f"{path.name} has no settings table"
    rows: dict[str, tuple[str, str, str]] = {}
    for table in text.split(HEADER)[1:]:  # every settings table of the page
        for line in table.splitlines()[2:]:
            if not line.startswith("|"):
                break
            cells = [cell.strip().replace("`", "") for cell in line.strip().strip("|").split("|")]
            assert len(cells) == 4, f"{path.name}: not four cells: {line}"
            option, variable, default, what = cells
            assert variable not in rows, f"{path.name}: {variable} twice"
            rows[variable] = (option, default, what)
    return rows


def test_readme_table_is_every_setting() -> None:
    rows, expected = documented(ROOT / "README.md"), declared()
    missing, extra = sorted(expected.keys() - rows.keys()), sorted(rows.keys() - expected.keys())
    assert not missing, f"README.md lacks rows for {missing}"
    assert not extra, f"README.md has rows for {extra}, which are no settings"
    for variable, row in expected.items():
        assert rows[variable] == row, variable


def test_deployment_table_says_what_the_declaration_says() -> None:
    rows, expected = documented(ROOT / "docs" / "deployment.md"), declared()
    assert rows
    for variable, row in rows.items():
        assert variable in expected, f"docs/deployment.md: {variable} is no setting"
        assert row == expected[variable], variable


def test_variable_is_kg_and_the_name() -> None:
    assert SETTINGS["store_timeout"].env == "KG_STORE_TIMEOUT"
    assert list(SETTINGS) == [f.name for f in fields(Settings)]
    assert all(setting.help and not setting.help.endswith(".") for setting in SETTINGS.values())


SAMPLES = {
    "str": "other",
    "Path": "elsewhere",
    "Path | None": "elsewhere",
    "Path | str": "http://127.0.0.1:1/ds",
    "float": "2.5",
    "int": "7",
}


@pytest.mark.parametrize("name", list(SETTINGS))
def test_each_variable_sets_its_setting(name: str) -> None:
    setting = SETTINGS[name]
    text = {
        "base": "http://other.example/",
        "licence": "https://example.org/licence",
        "trusted_proxies": "10.0.0.5, 172.16.0.0/12",
    }.get(name, SAMPLES[setting.type])
    value = getattr(load_settings(environ={setting.env: text}), name)
    assert value == absolute(setting.convert(text))
    assert value != absolute(setting.default)
    assert getattr(load_settings(environ={setting.env: ""}), name) == absolute(setting.default)


def absolute(value: object) -> object:
    """A folder setting as it is loaded: a relative one under the working directory."""
    return Path.cwd() / value if isinstance(value, Path) else value


def test_relative_folders_are_under_the_working_directory_when_loaded(
    tmp_path: Path, monkeypatch
) -> None:
    """The default settings name folders under the working directory at load, whatever
    reads them later and wherever it resolves a relative path (the dumps once came from the
    package's folder)."""
    monkeypatch.chdir(tmp_path)
    defaults = load_settings(environ={})
    remote = load_settings(environ={"KG_STORE": "http://127.0.0.1:1/ds", "KG_DUMPS": "d"})
    monkeypatch.chdir(tmp_path.parent)
    assert (defaults.store, defaults.data, defaults.dumps, defaults.archive_dir) == (
        tmp_path / ".kg" / "store",
        tmp_path / "data",
        tmp_path / ".kg" / "dumps",
        tmp_path / ".kg" / "store-archive",
    )
    assert (remote.store, remote.dumps, remote.archive_dir) == (
        "http://127.0.0.1:1/ds",
        tmp_path / "d",
        tmp_path / ".kg" / "archive",
    )


def test_text_of_the_wrong_type_is_a_config_error() -> None:
    for name in ("query_timeout", "max_rows"):
        with pytest.raises(ConfigError, match=name):
            load_settings(environ={SETTINGS[name].env: "soon"})


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("licence", "CC0"),
        ("feed_page", "0"),
        ("sitemap_urls", "50001"),
        ("sitemap_urls", "0"),
        ("cache_mb", "-1"),
        ("max_age", "-5"),
        ("trusted_proxies", "proxy.internal"),
    ],
)
def test_a_value_out_of_range_is_a_config_error(name: str, text: str) -> None:
    with pytest.raises(ConfigError, match=name):
        load_settings(environ={SETTINGS[name].env: text})


def test_options_take_help_and_default_from_the_declaration() -> None:
    opts = options()
    assert set(opts) == {"base", "store", "data", "archive"}
    result = CliRunner().invoke(main, ["--help"], terminal_width=400)
    assert result.exit_code == 0
    for name in opts:
        setting = SETTINGS[name]
        param = next(p for p in main.params if p.name == name)
        assert param.help == f"{setting.help} [env {setting.env}; default {setting.shown_default}]."
        assert param.help in result.output


def settings_json(args: list[str], env: dict[str, str | None]) -> dict[str, dict]:
    result = CliRunner().invoke(
        main, [*args, "settings", "--format", "json"], env={**NO_KG_ENV, **env}
    )
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.output)}


def test_settings_command_lists_every_setting_and_what_set_it(tmp_path: Path) -> None:
    rows = settings_json(["--data", str(tmp_path)], {"KG_MAX_ROWS": "5"})
    assert list(rows) == list(SETTINGS)
    for name, row in rows.items():
        setting = SETTINGS[name]
        assert (row["variable"], row["default"], row["help"]) == (
            setting.env,
            setting.shown_default,
            setting.help,
        )
        assert row["option"] == options().get(name)
    assert (rows["data"]["value"], rows["data"]["set_by"]) == (str(tmp_path), "option")
    assert (rows["max_rows"]["value"], rows["max_rows"]["set_by"]) == (5, "environment")
    assert (rows["query_timeout"]["value"], rows["query_timeout"]["set_by"]) == (10, "default")
    # worked out from the store (a folder under the working directory)
    assert rows["archive"]["value"] == str(Path.cwd() / ".kg" / "store-archive")


def test_settings_command_text_names_each_variable() -> None:
    result = CliRunner().invoke(main, ["settings"], env=NO_KG_ENV)
    assert result.exit_code == 0
    variables = re.findall(r"^(KG_\w+)", result.output, flags=re.M)
    assert variables == [setting.env for setting in SETTINGS.values()]


def test_an_unusable_setting_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["settings"], env={**NO_KG_ENV, "KG_BASE": "ftp://x/"})
    assert result.exit_code == ConfigError.exit_code == 2


def test_placeholder_base_is_a_reserved_name() -> None:
    assert load_settings(environ={}).placeholder_base
    assert load_settings({"base": "http://registry.test/kg/"}, environ={}).placeholder_base
    assert not load_settings({"base": "https://w3id.org/claimgraph/"}, environ={}).placeholder_base
    assert not load_settings({"base": "http://127.0.0.1:8080/"}, environ={}).placeholder_base


def test_trusted_proxies_are_networks() -> None:
    settings = load_settings({"trusted_proxies": "10.0.0.5,172.16.0.0/12,::1"}, environ={})
    assert [str(n) for n in settings.proxy_networks] == ["10.0.0.5/32", "172.16.0.0/12", "::1/128"]

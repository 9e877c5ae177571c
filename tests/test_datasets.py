"""Minari datasets (subterra_game.datasets, issue 44): the issue's target (10 tiny heuristic games, loaded and
recovered, a reset with an episode's seed giving its first observation), the bit-for-bit replay of every episode,
people's game records turned into a dataset, and each bad input refused by name with nothing left behind."""

from __future__ import annotations

import json

import numpy as np
import pytest

minari = pytest.importorskip("minari", reason="the datasets extra: pip install -e .[datasets]")
pytest.importorskip("pyarrow", reason="the datasets extra: pip install -e .[datasets]")

from subterra_env.config import preset  # noqa: E402
from subterra_game.datasets import cli  # noqa: E402
from subterra_game.datasets.build import build_dataset  # noqa: E402
from subterra_game.datasets.check import check_dataset  # noqa: E402
from subterra_game.datasets.records import dataset_from_records  # noqa: E402
from subterra_game.datasets.store import DatasetError  # noqa: E402
from subterra_game.records import save_record  # noqa: E402
from test_play_records import bot_game  # noqa: E402  (a heuristic game's record with people's seats)

TINY_ID = "subterra/tiny/heuristic-v0"


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A fresh Minari data path."""
    path = tmp_path / "minari"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(path))
    return path


def files_under(path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


def test_the_issue_target_ten_tiny_heuristic_games(root, capsys):
    assert cli.main(["build", "--config", "tiny", "--team", "heuristic", "--episodes", "10", "--id", TINY_ID,
                     "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith(f"{TINY_ID}: 10 episodes, ")
    dataset = minari.load_dataset(TINY_ID)
    assert dataset.total_episodes == 10
    assert dataset.spec.env_spec.id == "subterra/SubTerra-v0"
    assert dataset.spec.env_spec.kwargs["config"]["tiles"]["normal"] == {"4": 1, "T": 1, "L": 1, "I": 1}
    meta = dataset.storage.metadata["subterra"]
    assert (meta["config"], meta["team"], meta["source"], meta["package_version"]) == ("tiny", "heuristic", "play",
                                                                                        "0.1.0")
    assert meta["command"] == f"subterra dataset build --config tiny --team heuristic --episodes 10 --id {TINY_ID} " \
                              "--no-progress"
    env = dataset.recover_environment()
    assert env.unwrapped.games.config == preset("tiny")
    episode = dataset[7]
    assert episode.infos["seed"][0] == 7 and list(dataset.storage.get_episode_metadata([7]))[0]["seed"] == 7
    obs, info = env.reset(seed=7)
    assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (34, 15, 15)
    assert np.array_equal(obs["observation"], episode.observations["observation"][0])
    assert np.array_equal(obs["scalars"], episode.observations["scalars"][0])
    assert np.array_equal(info["action_mask"], episode.infos["action_mask"][0])
    assert len(episode.observations["scalars"]) == len(episode) + 1 == len(episode.infos["seat"])
    assert episode.terminations[-1] and not episode.terminations[:-1].any() and not episode.truncations.any()
    assert episode.rewards[-1] == [0.0, 1 / 3, 2 / 3, 1.0][episode.infos["result"][-1]]
    assert not episode.infos["human"].any()


def test_every_episode_replays_bit_for_bit_and_a_changed_one_is_found(root, capsys):
    build_dataset("subterra/tiny/mixed-v0", "tiny", "heuristic,random", 6, batch=4)
    report = check_dataset("subterra/tiny/mixed-v0")
    assert (report.ok, report.episodes) == (True, 6)
    assert report.steps == minari.load_dataset("subterra/tiny/mixed-v0").total_steps
    assert cli.main(["check", "subterra/tiny/mixed-v0", "--no-progress"]) == 0
    assert "6 episodes" in capsys.readouterr().out
    # games cut off after 2 rounds end truncated, in the dataset and in the recovered env alike
    build_dataset("subterra/tiny/cut-v0", "tiny", "random", 3, max_cycles=2)
    cut = minari.load_dataset("subterra/tiny/cut-v0")
    assert cut.recover_environment().unwrapped.games.max_cycles == 2
    assert all(ep.truncations[-1] and not ep.terminations.any() for ep in cut.iterate_episodes())
    assert check_dataset("subterra/tiny/cut-v0").ok
    # a dataset whose second episode claims another seed no longer replays, and check says where
    build_dataset("subterra/tiny/bad-v0", "tiny", "heuristic", 2)
    arrow = root / "subterra/tiny/bad-v0/data/1/part-0.arrow"
    import pyarrow as pa
    import pyarrow.dataset as ds

    table = ds.dataset(str(arrow), format="arrow").to_table()
    infos = table.column("infos").combine_chunks()
    fields = [infos.field(i) for i in range(infos.type.num_fields)]
    names = [infos.type.field(i) for i in range(infos.type.num_fields)]
    k = [f.name for f in names].index("seed")
    fields[k] = pa.array(np.full(len(table), 99, np.int64))
    table = table.set_column(table.schema.get_field_index("infos"), "infos",
                             pa.StructArray.from_arrays(fields, fields=names))
    with pa.OSFile(str(arrow), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    report = check_dataset("subterra/tiny/bad-v0")
    assert not report.ok and report.problems[0].startswith("episode 1: reset(seed=99): observation")
    assert cli.main(["check", "subterra/tiny/bad-v0", "--no-progress"]) == 1


def test_records_of_people_become_a_dataset(root, tmp_path):
    with_person = save_record(bot_game(seed=4, cfg=preset("tiny"), humans=(0, 2)), tmp_path / "a.json")
    bots_only = save_record(bot_game(seed=5, cfg=preset("tiny"), humans=()), tmp_path / "b.json")
    summary = dataset_from_records([with_person, bots_only], "subterra/tiny/people-v0")
    dataset = minari.load_dataset("subterra/tiny/people-v0")
    assert (summary.episodes, dataset.total_episodes) == (2, 2)
    doc = json.loads(with_person.read_text())
    episode = dataset[0]
    assert episode.actions.tolist() == [a["action"] for a in doc["actions"]]
    assert episode.infos["human"][:-1].tolist() == [a["seat"] in (0, 2) for a in doc["actions"]]
    assert episode.infos["seat"][:-1].tolist() == [a["seat"] for a in doc["actions"]]
    assert episode.infos["seed"][0] == 4 and episode.infos["result"][-1] == doc["result"]["code"]
    assert list(dataset.storage.get_episode_metadata([0]))[0]["players"] == ["human", "heuristic", "human",
                                                                             "heuristic"]
    assert check_dataset("subterra/tiny/people-v0").ok
    dataset_from_records([with_person, bots_only], "subterra/tiny/only-people-v0", only_human=True)
    only = minari.load_dataset("subterra/tiny/only-people-v0")
    assert only.total_episodes == 1
    assert only.storage.metadata["subterra"]["skipped"] == ["b.json: no person at the table"]


def test_an_existing_id_needs_overwrite_and_is_replaced_whole(root, capsys):
    build_dataset(TINY_ID, "tiny", "heuristic", 2)
    before = files_under(root)
    assert cli.main(["build", "--config", "tiny", "--team", "random", "--episodes", "3", "--id", TINY_ID]) == 2
    err = capsys.readouterr().err
    assert f"dataset {TINY_ID!r} already exists" in err and "--overwrite" in err
    assert files_under(root) == before
    build_dataset(TINY_ID, "tiny", "random", 3, overwrite=True)
    assert minari.load_dataset(TINY_ID).total_episodes == 3
    assert minari.load_dataset(TINY_ID).storage.metadata["subterra"]["team"] == "random"
    assert not [p for p in files_under(root) if ".partial-" in p or ".old-" in p]


@pytest.mark.parametrize("config, team, message", [
    ("tiny", "heuristc", "unknown team entry 'heuristc'"),
    ("tiny", "heuristic,heuristic,heuristic,heuristic,random", "has 5 entries but the game has 4 seats"),
    ("annihilation", "search", "team entry 'search' cannot play the scenario 'annihilation'"),
    ("tiny", "policy:no/such.zip", "policy checkpoint not found: 'no/such.zip'"),
    ("tinny", "heuristic", "config 'tinny': no such file, and not a preset"),
])
def test_bad_teams_and_configs_are_named_and_nothing_is_written(root, capsys, config, team, message):
    assert cli.main(["build", "--config", config, "--team", team, "--episodes", "2", "--id", "subterra/x/y-v0",
                     "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("subterra dataset build: ") and message in err
    assert files_under(root) == []


def test_bad_records_and_ids_are_named_and_nothing_is_written(root, tmp_path, capsys):
    good = save_record(bot_game(seed=4, cfg=preset("tiny")), tmp_path / "good.json")
    other_game = tmp_path / "cave.json"
    other_game.write_text(json.dumps({"format": "in-the-cave-record", "schema_version": 1}))
    other_settings = save_record(bot_game(seed=4, cfg=preset("small")), tmp_path / "small.json")
    cases = [([str(good), str(other_game)], "subterra/x/r-v0",
              "not a Sub Terra game record ('format' should be 'subterra-record', got 'in-the-cave-record')"),
             ([str(good), str(other_settings)], "subterra/x/r-v0", "small.json: its settings differ from those of"),
             ([str(tmp_path / "missing.json")], "subterra/x/r-v0", "missing.json: cannot read the record"),
             ([str(good)], "no spaces allowed-v0", "dataset id 'no spaces allowed-v0' is malformed")]
    for files, dataset_id, message in cases:
        assert cli.main(["from-records", *files, "--id", dataset_id, "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert message in err, err
    assert files_under(root) == []
    with pytest.raises(DatasetError, match="no dataset 'subterra/x/none-v0'"):
        check_dataset("subterra/x/none-v0")


def test_behaviour_cloning_reads_a_dataset_as_demonstrations(root, tmp_path):
    pytest.importorskip("torch")
    from training import bc

    build_dataset("subterra/tiny/teacher-v0", "tiny", "heuristic", 3)
    demos = bc.load_demos("minari:subterra/tiny/teacher-v0", gamma=0.5)
    dataset = minari.load_dataset("subterra/tiny/teacher-v0")
    assert len(demos) == dataset.total_steps and demos.obs["observation"].shape[1:] == (34, 15, 15)
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # every action was legal where it was taken
    first = dataset[0]
    n = len(first)
    assert demos.returns[n - 1] == first.rewards[-1] and demos.returns[n - 2] == 0.5 * first.rewards[-1]
    assert demos.has_return.all() and sorted(set(demos.game.tolist())) == [0, 1, 2]
    people = save_record(bot_game(seed=4, cfg=preset("tiny"), humans=(1,)), tmp_path / "p.json")
    dataset_from_records([people], "subterra/tiny/people-v0")
    mine = bc.from_dataset("subterra/tiny/people-v0", only_human=True)
    doc = json.loads(people.read_text())
    assert mine.actions.tolist() == [a["action"] for a in doc["actions"] if a["seat"] == 1]


def test_the_registered_env_takes_a_preset_or_settings_and_its_spec_round_trips():
    import gymnasium

    from subterra_env.config import to_dict
    from subterra_game.records import settings_to_json

    by_name = gymnasium.make("subterra/SubTerra-v0", config="small", max_cycles=50)
    spec = gymnasium.spec("subterra/SubTerra-v0")
    spec = type(spec).from_json(spec.to_json())  # the JSON a dataset stores
    by_settings = gymnasium.make(spec, config=json.loads(json.dumps(settings_to_json(preset("small")))),
                                 max_cycles=50)
    assert to_dict(by_name.unwrapped.games.config) == to_dict(by_settings.unwrapped.games.config)
    assert by_name.unwrapped.games.config == preset("small") and by_settings.unwrapped.games.max_cycles == 50
    a, _ = by_name.reset(seed=11)
    b, _ = by_settings.reset(seed=11)
    assert all(np.array_equal(a[k], b[k]) for k in ("observation", "scalars"))
    with pytest.raises(ValueError, match="unknown preset 'smal'"):
        gymnasium.make("subterra/SubTerra-v0", config="smal")

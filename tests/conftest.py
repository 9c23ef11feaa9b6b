"""Shared test switches: `--runslow` runs the cases marked slow (the benchmark's territory)."""
import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run tests marked slow (minutes each)")


# The default suite's time budget (5 minutes on 2 cores): these cases are the heaviest of the
# suite (measured with --durations) and each has a lighter stand-in in the default suite (named
# after it); they run with --runslow like the cases marked slow in their files.
HEAVY = {
    # 2026-11-28: lab core's new cases (CP-SAT backend, work folder, retried undecided group)
    "test_why.py::test_tiling_search_ablates_its_symmetry_breaking",  # 5 s CPU; the tiling's
    # optional group: test_the_formulations_mark_their_optional_groups, ablation: the 8-easy case
    # 2026-11-28: peg cubes' --switch/--split-depth cases (test_peg_cubes resume test, CLI call)
    "test_peg_cubes.py::test_registry[3-False-peg/hoppers-6-INFEASIBLE]",  # hoppers-first06's stays
    # 2026-11-27: 313 s cold on a fresh clone after issues 35-40: four more cases, each beside a sibling
    "test_peg_upper.py::test_beam_against_exact_minima[6]",            # the side-5 case stays
    "test_campaign.py::test_a_job_past_its_time_limit_is_stored_with_its_time_and_counts_as_unsolved",
    # ^ test_reports' late answers counted unsolved stays
    "test_hostile_dask.py::test_a_peg_layer_on_a_cluster_without_workers_fails_in_bounded_time",
    # ^ the campaign on a cluster without workers stays
    "test_plugins.py::test_installed_plugin_works_from_the_command_line[nqueens]",  # the others stay
    # suite time (2026-11-26: 319 s cold on 2 cores): a sibling case of each stays in the default suite
    "test_peg_disk.py::test_interrupted_search_resumes_from_its_last_layer[None]",  # disk path [0] stays
    "test_peg_bfs.py::test_lone_peg_long_chains_lose_no_successor[triangle7-14]",   # triangle7-0 stays
    "test_sliding.py::test_model_options_keep_the_optimum[sat-opts1]",
    "test_sliding.py::test_model_options_keep_the_optimum[sat-opts3]",
    "test_tiling_search.py::test_2x5x6_264_orbits_2112_tilings",   # the orbit-branch tests stay
    "test_options.py::test_maze_dfs_pruning_options_change_the_work[refine-False]",
    # campaigns: a killed worker (stand-ins: test_sliding_split's lost worker, the campaign SIGKILL)
    "test_campaign_dask.py::test_worker_killed_mid_campaign_every_job_recorded_once",
    "test_tiling_search.py::test_campaign_split_count_dask_local_cluster",  # local executor stays
    "test_sliding_split.py::test_dask_split_time_limit_gives_a_lower_bound",  # dask optimum stays
    "test_sliding_split.py::test_dask_engine_option",                  # the split's own tests stay
    "test_peg_problems_store.py::test_store_table_equals_brute_force_and_resumes",  # tampered stays
    "test_cli.py::test_peg_commands_read_time_limits_like_solve[cmd0]",  # peg problems' [cmd1] stays
    "test_sliding.py::test_korf_easiest_natively[16]",                 # 55 and 79 stay
    "test_sliding.py::test_korf_easiest_natively[42]",
    "test_sliding.py::test_korf_easiest_natively[97]",
    # solver cases beside cheaper ones of the same engine
    "test_pentomino.py::test_models_reproduce_spec_counts[cpsat-8x8-centre-False]",
    "test_pentomino.py::test_engines_feasible[sat]",                   # sat counts 3x20 stays
    "test_pentomino_3d.py::test_models_reproduce_small_published_counts[sat-8x8-holes-2-5]",
    "test_sliding.py::test_wider_boards_agree[6-6-4-engines3]",
    "test_sliding.py::test_wider_boards_agree[5-5-3-engines2]",
    "test_sliding.py::test_8_hardest_has_40_optimal_solutions[sat]",   # sat 8-hardest 31 stays
    "test_sliding.py::test_8_hardest_has_40_optimal_solutions[native:iddfs]",  # live-count test
    "test_sliding.py::test_8_hardest_2_is_31[cpsat]",
    "test_sliding.py::test_easy_15_counts[15-easy-20-cpsat]",
    "test_sliding.py::test_easy_15_counts[15-easy-20-sat]",
    "test_sliding.py::test_model_options_keep_the_optimum[cpsat-opts0]",
    "test_sliding.py::test_model_options_keep_the_optimum[cpsat-opts1]",
    "test_sliding_dual.py::test_dual_lookup_admissible_on_every_state[False-3-3-partition2-betas2]",
    "test_sliding_dual.py::test_dual_lookup_admissible_on_every_state[smallest-3-3-partition2-betas2]",  # = True on 4-4
    "test_peg.py::test_published_results[peg/ipc-p05-optimize-cpsat]",
    "test_peg.py::test_published_results[peg/ipc-p12-optimize-cpsat]",
    "test_peg.py::test_published_results[peg/ipc-p12-optimize-sat]",
    "test_peg.py::test_published_results[peg/ipc-p05-optimize-sat]",
    "test_peg_merson.py::test_ordered_keeps_the_optimum_on_symmetric_positions",  # brute force stays
    "test_tiling_search.py::test_orbit_branches_give_every_tiling_once[2x5x6-fewest]",
    "test_tiling_rotations.py::test_cli_solve_and_compare_up_to_rotations",  # API tests stay
    "test_draw.py::test_box_tiling_layer_labels_legend_and_continuations[tetracubes-2x4x4]",
    # measured on a fresh clone, quiet machine (2 cores): the next heaviest, each beside a stand-in
    "test_peg_disk.py::test_interrupted_search_resumes_from_its_last_layer[0]",  # [None] stays
    "test_peg_disk.py::test_merson_bound_is_admissible[triangle21]",  # smaller boards stay
    "test_peg_resource.py::test_resource_constraints_never_cut_a_solution",  # resource tests stay
    "test_peg_cluster.py::test_killed_dask_workers_chunks_are_run_again",  # killed local chunks stay
    "test_peg_cluster.py::test_killed_dask_workers_that_restart_slowly_are_waited_for",  # config test
    "test_peg_cluster.py::test_local_chunks_equal_one_process",  # (killed local chunks: same answer)
    "test_peg_merson.py::test_merson_counts_never_cut_a_solution",  # merson vs brute force stays
    "test_peg_search.py::test_ascend_proves_each_bound_below_the_optimum",
    "test_peg.py::test_french37_without_the_invariant_never_answers_wrongly",
    "test_campaign.py::test_store_of_another_campaign_and_silent_scheduler_leave_the_store_untouched",
    "test_sliding_dual.py::test_dual_search_on_fifteen_puzzles",  # 8-puzzle dual search stays
    "test_sliding_dual.py::test_dual_lookup_admissible_on_every_state[True-3-3-partition2-betas2]",
    "test_sliding_split.py::test_dual_lookup_split_counts_like_one_process",
    "test_sliding_split.py::test_dask_split_counts_like_one_process[15-easy-36]",
    "test_pentomino_3d.py::test_numba_disabled_3d_and_parallel_run_as_python",  # 2D plain-Python stays
    "test_tiling_search.py::test_orbit_branches_only_where_they_pay",
    "test_maze_engines.py::test_native_on_grids_beyond_186_edges[64-64]",  # smaller grids stay
    "test_campaign.py::test_ctrl_c_kills_running_jobs_and_keeps_a_consistent_store",  # SIGKILL stays
    "test_tiling_search.py::test_numba_disabled_fewest_options_runs_as_python",  # 2D kernel stays
    "test_pentomino.py::test_models_cut_short_are_unknown_never_a_count[cpsat]",  # [sat] stays
    # a Jupyter kernel running the tour (its calls: the README's session in test_doctests; its
    # HTML and SVG reprs: test_reports and test_draw)
    "test_notebook.py::test_tour_notebook_runs_in_a_kernel",
    "test_peg_search.py::test_triangle21_model_proves_12",  # the model's count on hoppers stays
}


# Seconds each file took (2026-11-26, warm numba cache, 2 cores under load: the order is what
# counts; test_doctests.py carries the README's cold compile on top): the heaviest files are
# handed to the workers first (with --no-loadscope-reorder in the options),
# so that the run does not end with one worker on a long file while the other waits.
FILE_SECONDS = {
    "test_doctests.py": 72, "test_options.py": 53,
    "test_tiling_search.py": 44, "test_sliding.py": 43, "test_pentomino.py": 40,
    "test_maze_engines.py": 40, "test_peg_cubes.py": 40, "test_campaign.py": 36,
    "test_peg_bfs.py": 31, "test_runner.py": 31, "test_pentomino_3d.py": 29, "test_peg.py": 26,
    "test_peg_disk.py": 26, "test_api.py": 23, "test_paradigms.py": 30, "test_why.py": 28, "test_peg_problems.py": 25, "test_peg_upper.py": 30,
    # certify_integration (48 s when it compiles the proof checker) runs mid-suite, after the
    # README session (test_doctests) and the CP-SAT cubes (test_peg_cubes) have compiled the
    # checker and the LRAT converter into numba's cache: the other worker then loads them
    "test_certify_integration.py": 22.5, "test_reports.py": 21, "test_certificate.py": 3,
    "test_sliding_split.py": 30, "test_sliding_dual.py": 19, "test_examples.py": 18,
    "test_peg_games.py": 20, "test_sliding_zpdb.py": 46,
    "test_campaign_tls.py": 17, "test_differential.py": 16, "test_peg_cluster.py": 13,
    "test_export_ext.py": 12, "test_plugins.py": 25, "test_fuzz_loaders.py": 12,
    "test_plugin_containment.py": 12, "test_collections.py": 21,
    "test_layers.py": 12, "test_peg_merson.py": 11, "test_cli.py": 12, "test_lab.py": 10,
    "test_plan_once.py": 6,
    "test_hostile_store.py": 10, "test_namespace.py": 8, "test_draw.py": 8, "test_export.py": 7,
    "test_sliding_pdb.py": 7, "test_certify.py": 18, "test_tiling_rotations.py": 6,
    "test_peg_problems_store.py": 5, "test_properties.py": 5, "test_specs_are_data.py": 4,
    "test_honest_numbers.py": 35, "test_unique.py": 25, "test_counts.py": 30, "test_model_count.py": 25,
    "test_conformance_kit.py": 8,
    "test_hostile_writes.py": 20, "test_hostile_workfolders.py": 30, "test_hostile_engines.py": 15,
    "test_hostile_outputs.py": 12, "test_hostile_dask.py": 20, "test_hostile_fuzz.py": 15,
    "test_hostile_provenance.py": 16,
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker more than the usable cores. Part of the suite waits (child processes,
    sleeps past a time limit, local sockets); the spare worker fills those gaps."""
    import os
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: -FILE_SECONDS.get(item.path.name, 0))  # stable: files stay whole
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow (see README, Benchmarks)")
    for item in items:
        if "slow" in item.keywords or item.nodeid.removeprefix("tests/") in HEAVY:
            item.add_marker(skip)


# ---- plain-Python kernels ----------------------------------------------------------------------
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def no_jit():
    """`run(code, env=None) -> stdout`: Python code in a fresh interpreter with numba's JIT off
    (NUMBA_DISABLE_JIT=1), so the numba kernels run as the plain Python they must also be; a
    non-zero exit fails the test with the interpreter's error."""
    def run(code: str, env: dict | None = None, timeout: float = 300) -> str:
        full = "from numba.core import config; assert config.DISABLE_JIT\n" + textwrap.dedent(code)
        out = subprocess.run([sys.executable, "-c", full], capture_output=True, text=True,
                             timeout=timeout, cwd=ROOT,
                             env={**os.environ, **(env or {}), "NUMBA_DISABLE_JIT": "1"})
        assert out.returncode == 0, out.stderr[-4000:]
        return out.stdout
    return run

// experiment: lorenz05. Spins a base state up onto the attractor, perturbs it
// into an ensemble, integrates every member together and writes snapshots
// with the ensemble mean and spread. Over MPI ranks each rank integrates a
// contiguous block of the members: every rank draws every member's start (so
// each member starts as on one rank) and keeps its block; the statistics sum
// the members in one tree of their indices however they are split (the
// single-rank bits), the states are gathered in member order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/interrupt.hpp"
#include "core/profiling.hpp"
#include "core/timer.hpp"
#include "drivers/experiment.hpp"
#include "drivers/option_keys.hpp"
#include "drivers/option_table.hpp"
#include "drivers/rank_blocks.hpp"
#include "drivers/repeat_loop.hpp"
#include "solvers/lorenz05/ensemble.hpp"
#include "solvers/lorenz05/statistics.hpp"

namespace portasolve::drivers {

namespace lz = lorenz05;

void add_lorenz05_schema(config::Schema& schema) {
  const lz::ModelParameters d = lz::model_three_defaults();
  add_integer(schema, "lorenz05.model", "1 (Lorenz 96), 2 or 3 (two scales)", d.model).at_least(1).at_most(3);
  add_integer(schema, "lorenz05.model_size", "N, points on the cyclic domain", d.model_size)
      .at_least(4)
      .at_most(2147483647);
  add_real(schema, "lorenz05.forcing", "F", d.forcing);
  add_real(schema, "lorenz05.delta_t", "RK4 time step", d.delta_t).greater_than(0);
  add_real(schema, "lorenz05.space_time_scale", "b (model 3)", d.space_time_scale);
  add_real(schema, "lorenz05.coupling", "c (model 3; the paper's 2.5, DART's default 3)", d.coupling);
  add_integer(schema, "lorenz05.K", "K, the large scale's averaging length (models 2, 3)", d.K).at_least(1);
  add_integer(schema, "lorenz05.smooth_steps", "I, the running smoother's half width (model 3)", d.smooth_steps)
      .at_least(0);
  add_integer(schema, "lorenz05.steps", "RK4 steps integrated", 1000).at_least(0);
  add_integer(schema, "lorenz05.output_every", "steps between snapshots", 100).at_least(1);
  add_choice(schema, "lorenz05.layout",
             "team (a member per team, steps in one launch), flat, vector (a member per thread, points in SIMD "
             "lanes: CPUs), resident (several members per team, every row in team scratch: GPUs), or automatic",
             lz::layout_names(), "automatic");
  add_integer(schema, "ensemble.members", "E, members integrated together", 40).at_least(1).at_most(2147483647);
  add_real(schema, "ensemble.perturbation", "standard deviation of each member's Gaussian perturbation", 0.01)
      .at_least(0);
  add_integer(schema, "ensemble.spinup_steps",
              "steps taking the base state (F, first point 1.001 F) onto the attractor", 2000)
      .at_least(0);
  add_boolean(schema, "output.state", "write /output/state (snapshot x member x N)", true);
  add_choice(schema, "benchmark.baseline", "also time the flat one-kernel-per-stage layout in the same run",
             {"none", "flat"}, "none");
}

namespace {

// Every ModelParameters field (and the layout, read elsewhere): the config
// key that sets it (the key an OptionError naming it points at) and how it
// is read.
const OptionTable<lz::ModelParameters>& model_option_table() {
  using P = lz::ModelParameters;
  static const OptionTable<P> table{"lorenz05.",
                                    {
                                        {"model", value(&P::model)},
                                        {"model_size", value(&P::model_size)},
                                        {"forcing", value(&P::forcing)},
                                        {"delta_t", value(&P::delta_t)},
                                        {"space_time_scale", value(&P::space_time_scale)},
                                        {"coupling", value(&P::coupling)},
                                        {"K", value(&P::K)},
                                        {"smooth_steps", value(&P::smooth_steps)},
                                        {"layout", {}},
                                    }};
  return table;
}

lz::ModelParameters model_parameters(const config::Config& config) { return model_option_table().read(config); }

const OptionKeys& model_option_keys() { return model_option_table().keys(); }

template <class T>
lz::Ensemble<T> make_ensemble(const config::Config& config, const lz::ModelParameters& p, lz::Layout layout) {
  try {
    return lz::Ensemble<T>(p, layout);
  } catch (const OptionError& error) {
    throw config_error_for(config, error, model_option_keys(), "lorenz05.model");
  }
}

// Steps in launches of about poll_seconds each, polling for Ctrl-C between
// them: the team layout runs every step one advance() is given in a single
// launch, so a long spin-up or snapshots far apart would not notice a signal
// for minutes. Splitting changes no result: the state goes through memory in
// T between launches as between steps. The first launch is one step; each
// next one is sized from the pace measured so far, growing at most fourfold.
template <class T>
class InterruptibleStepper {
 public:
  static constexpr double poll_seconds = 0.25;
  static constexpr std::int64_t max_growth = 4;

  explicit InterruptibleStepper(lz::Ensemble<T>& ensemble) : ensemble_(ensemble) {}

  // Advances `steps` steps; returns the seconds spent in the launches alone.
  double advance(const View2D<T>& states, std::int64_t steps) {
    double seconds = 0;
    for (std::int64_t done = 0; done < steps;) {
      const std::int64_t now = std::min(chunk_, steps - done);
      Stopwatch watch;
      ensemble_.advance(states, now);
      Kokkos::fence();
      const double elapsed = watch.seconds();
      seconds += elapsed;
      done += now;
      throw_if_interrupted();
      const double per_step = elapsed / static_cast<double>(now);
      const double fitting = per_step > 0 ? poll_seconds / per_step : static_cast<double>(max_growth * now);
      chunk_ = std::max<std::int64_t>(1, std::min<double>(fitting, static_cast<double>(max_growth * now)));
    }
    return seconds;
  }

 private:
  lz::Ensemble<T>& ensemble_;
  std::int64_t chunk_ = 1;
};

struct Snapshots {
  std::vector<double> time, mean, spread, spread_rms;
  std::vector<std::vector<double>> state;  // per snapshot: this rank's members x N
};

#if PORTASOLVE_HAVE_MPI
// Every rank's partial sums in rank order (which is member order), on every
// rank: each rank's block is block_span's, as my_block's.
std::vector<lz::PartialSums> gather_partial_sums(const Ranks& ranks, const lz::PartialSums& mine) {
  const std::int64_t members = mine.block.members;
  std::vector<lz::PartialSums> all(static_cast<std::size_t>(ranks.size));
  std::vector<int> counts(all.size()), displacements(all.size());
  std::int64_t total = 0;
  for (int r = 0; r < ranks.size; ++r) {
    const distributed::Span span = distributed::block_span(members, ranks.size, r);
    all[r].block = {span.first, span.count, members};
    all[r].points = mine.points;
    const std::int64_t count = static_cast<std::int64_t>(lz::sum_nodes(all[r].block).size()) * mine.points;
    if (total + count > INT_MAX) {
      throw SolverError("lorenz05: " + std::to_string(total + count) +
                        " partial sums are too many to gather over MPI ranks (at most 2^31 - 1)");
    }
    counts[r] = static_cast<int>(count);
    displacements[r] = static_cast<int>(total);
    total += count;
  }
  std::vector<double> values(static_cast<std::size_t>(total));
  MPI_Allgatherv(mine.sums.data(), counts[ranks.rank], MPI_DOUBLE, values.data(), counts.data(), displacements.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  for (int r = 0; r < ranks.size; ++r) {
    const auto first = values.begin() + displacements[r];
    all[r].sums.assign(first, first + counts[r]);
  }
  return all;
}
#endif

// Mean and spread over every rank's members, the single-rank bits on every
// rank: each rank sums its members at the nodes of the members' summation
// tree that lie in its block (lorenz05::partial_sums), and every rank
// completes the tree from every rank's sums (the mean, then the squared
// deviations from it alike).
template <class T>
lz::EnsembleStatistics statistics_over_ranks(const Ranks& ranks, const View2D<T>& states, std::int64_t members) {
#if PORTASOLVE_HAVE_MPI
  if (ranks.size > 1) {
    const ItemBlock mine = my_block(ranks, members);
    const lz::MemberBlock block{mine.first, mine.count, members};
    lz::EnsembleStatistics result;
    result.mean =
        lz::ensemble_mean(lz::complete_sums(gather_partial_sums(ranks, lz::partial_sums(states, block))), members);
    result.spread = lz::ensemble_spread(
        lz::complete_sums(gather_partial_sums(ranks, lz::partial_squares(states, block, result.mean))), members);
    return result;
  }
#endif
  (void)ranks, (void)members;
  return lz::ensemble_statistics(states);
}

template <class T>
void run_typed(RunContext& context) {
  const auto& config = context.config;
  const lz::ModelParameters p = model_parameters(config);
  const int n = p.model_size;
  const int members = static_cast<int>(config.integer("ensemble.members"));
  const ItemBlock block = my_block(context.ranks, members);
  const int local_members = static_cast<int>(block.count);
  const std::int64_t steps = config.integer("lorenz05.steps"), every = config.integer("lorenz05.output_every");
  const bool write_state = config.boolean("output.state");
  Stopwatch setup_watch;
  lz::Ensemble<T> ensemble = make_ensemble<T>(config, p, lz::layout_from_name(config.string("lorenz05.layout")));

  // Base state as DART starts it, spun up; then seeded Gaussian perturbations.
  View2D<T> base("lorenz05_base", 1, n);
  auto host_base = Kokkos::create_mirror_view(base);
  for (int i = 0; i < n; ++i) host_base(0, i) = static_cast<T>(p.forcing);
  host_base(0, 0) = static_cast<T>(1.001 * p.forcing);
  Kokkos::deep_copy(base, host_base);
  InterruptibleStepper<T>(ensemble).advance(base, config.integer("ensemble.spinup_steps"));
  Kokkos::deep_copy(host_base, base);
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(static_cast<double>(host_base(0, i))))
      throw SolverError("lorenz05: the spin-up diverged (non-finite state); reduce lorenz05.delta_t");
  // Every member's start on every rank (the draws in member order); this
  // rank's block goes to its device.
  const View2D<T> start("lorenz05_start", local_members, n), states("lorenz05_states", local_members, n);
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> host_start("lorenz05_host_start", members, n);
  std::mt19937_64 generator(static_cast<std::uint64_t>(config.integer("seed")));
  std::normal_distribution<double> normal(0, config.real("ensemble.perturbation"));
  for (int e = 0; e < members; ++e) {
    throw_if_interrupted();
    for (int i = 0; i < n; ++i) host_start(e, i) = static_cast<T>(host_base(0, i) + normal(generator));
  }
  Kokkos::deep_copy(start,
                    Kokkos::subview(host_start, std::make_pair(block.first, block.first + block.count), Kokkos::ALL));
  const double setup_s = setup_watch.seconds();

  // Times the integration alone; snapshots (statistics, copies) are not timed.
  const auto integrate = [&](lz::Ensemble<T>& runner, const std::string& label, Snapshots* snapshots) {
    InterruptibleStepper<T> stepper(runner);  // its pace carries over from the warm-up
    const RepeatTask task{"lorenz05/" + label, steps, "step", false};
    return repeat_with_progress(
        context, task, [&] { Kokkos::deep_copy(states, start); },
        [&](const Repeat& repeat, Progress& progress) {
          const bool record = snapshots && repeat.last();
          const auto snapshot = [&](std::int64_t step) {
            if (!record) return;
            const lz::EnsembleStatistics statistics = statistics_over_ranks(context.ranks, states, members);
            double sum = 0;
            for (double s : statistics.spread) sum += s * s;
            snapshots->time.push_back(static_cast<double>(step) * p.delta_t);
            snapshots->mean.insert(snapshots->mean.end(), statistics.mean.begin(), statistics.mean.end());
            snapshots->spread.insert(snapshots->spread.end(), statistics.spread.begin(), statistics.spread.end());
            snapshots->spread_rms.push_back(std::sqrt(sum / n));
            if (write_state) {
              const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), states);
              snapshots->state.emplace_back(host.data(), host.data() + host.size());
            }
          };
          snapshot(0);
          double seconds = 0;
          for (std::int64_t done = 0; done < steps;) {
            const std::int64_t chunk = std::min(every, steps - done);
            seconds += stepper.advance(states, chunk);
            done += chunk;
            progress.update(done);
            snapshot(done);
          }
          return RepeatResult{seconds, std::nullopt};
        });
  };

  const bool with_baseline = config.string("benchmark.baseline") == "flat";
  RepeatTimes baseline_times;
  std::vector<double> baseline_final;
  if (with_baseline) {
    lz::Ensemble<T> flat = make_ensemble<T>(config, p, lz::Layout::flat);
    baseline_times = integrate(flat, "flat (baseline)", nullptr);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), states);
    baseline_final.assign(host.data(), host.data() + host.size());
  }
  Snapshots snapshots;
  const RepeatTimes times = integrate(ensemble, lz::name_of(ensemble.layout()), &snapshots);
  const auto final_state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), states);
  int finite = 1;
  for (std::size_t k = 0; k < final_state.size(); ++k)
    if (!std::isfinite(static_cast<double>(final_state.data()[k]))) finite = 0;
#if PORTASOLVE_HAVE_MPI
  // Every rank learns of a divergence anywhere, and all throw alike.
  if (context.ranks.size > 1) MPI_Allreduce(MPI_IN_PLACE, &finite, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
#endif
  if (finite == 0) throw SolverError("lorenz05: the integration diverged (non-finite state); reduce lorenz05.delta_t");

  auto& result = context.result;
  result.set_timing(setup_s, times);
  if (with_baseline) result.set_baseline("flat", baseline_times);
  auto& input = result.input();
  input.set_attribute("model", static_cast<std::int64_t>(p.model));
  input.set_attribute("model_size", static_cast<std::int64_t>(n));
  input.set_attribute("members", static_cast<std::int64_t>(members));
  input.set_attribute("base_state",
                      "F everywhere, 1.001 F at the first point, spun up; members add N(0, perturbation^2)");
  std::vector<double> start_values(host_start.data(), host_start.data() + host_start.size());
  input.write_dataset("start", start_values.data(),
                      h5::Dims{static_cast<std::size_t>(members), static_cast<std::size_t>(n)});

  auto& output = result.output();
  const std::size_t count = snapshots.time.size();
  output.write_dataset("time", snapshots.time);
  output.write_dataset("mean", snapshots.mean.data(), h5::Dims{count, static_cast<std::size_t>(n)});
  output.write_dataset("spread", snapshots.spread.data(), h5::Dims{count, static_cast<std::size_t>(n)});
  output.write_dataset("spread_rms", snapshots.spread_rms);
  output.set_attribute("description", "ensemble standard deviation per point (sample, E - 1)", "spread");
  if (write_state) {
    // Every rank's members in member order, snapshot after snapshot.
    std::vector<T> state;
    state.reserve(count * static_cast<std::size_t>(members) * static_cast<std::size_t>(n));
    for (const auto& mine : snapshots.state) {
      const std::vector<double> all = gather_rows(context.ranks, members, n, mine);
      state.insert(state.end(), all.begin(), all.end());
    }
    output.write_dataset("state", state.data(),
                         h5::Dims{count, static_cast<std::size_t>(members), static_cast<std::size_t>(n)});
    output.set_attribute("description", "snapshot x member x point", "state");
  }
  const double seconds = times.median();
  const double rate = seconds > 0 ? static_cast<double>(members) * static_cast<double>(steps) / seconds : 0.0;
  output.set_attribute("layout", lz::name_of(ensemble.layout()));
  output.set_attribute("steps", steps);
  output.set_attribute("member_steps_per_second", rate);
  if (context.ranks.size > 1) output.set_attribute("ranks", static_cast<std::int64_t>(context.ranks.size));
  if (with_baseline) {
    double difference = 0;
    for (std::size_t k = 0; k < baseline_final.size(); ++k)
      difference = std::max(difference, std::fabs(baseline_final[k] - static_cast<double>(final_state.data()[k])));
#if PORTASOLVE_HAVE_MPI
    if (context.ranks.size > 1) MPI_Allreduce(MPI_IN_PLACE, &difference, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
    output.set_attribute("baseline_max_difference", difference);
  }

  char line[240];
  std::snprintf(line, sizeof line, "lorenz05: model %d, N=%d, %d members, %lld steps, layout %s\n", p.model, n, members,
                static_cast<long long>(steps), lz::name_of(ensemble.layout()).c_str());
  context.out << line;
  std::snprintf(line, sizeof line, "time: %.6g s (median of %zu), %.4g member-steps/s; final spread (rms) %.4g\n",
                seconds, times.seconds.size(), rate, snapshots.spread_rms.empty() ? 0.0 : snapshots.spread_rms.back());
  context.out << line;
  if (context.ranks.size > 1) {
    std::snprintf(line, sizeof line, "ranks: %d, %d to %d members each (time: rank 0's)\n", context.ranks.size,
                  members / context.ranks.size, (members + context.ranks.size - 1) / context.ranks.size);
    context.out << line;
  }
  if (with_baseline) {
    std::snprintf(line, sizeof line, "baseline, flat one kernel per stage: %.6g s; speedup %.2fx\n",
                  baseline_times.median(), baseline_times.median() / seconds);
    context.out << line;
  }
}

}  // namespace

void run_lorenz05(RunContext& context) {
  with_precision(context.config, [&](auto zero) { run_typed<decltype(zero)>(context); });
}

void check_lorenz05_ranks(const config::Config& config, int ranks) {
  const std::int64_t members = config.integer("ensemble.members");
  if (members < ranks)
    throw ConfigError(config.where("ensemble.members"), "ensemble.members",
                      std::to_string(members) + " members cannot be split over " + std::to_string(ranks) +
                          " ranks (each rank integrates a block of at least one member)",
                      "at least " + std::to_string(ranks) + " members, or fewer ranks");
}

Preflight preflight_lorenz05(const config::Config& config) {
  const double n = static_cast<double>(config.integer("lorenz05.model_size"));
  const double members = static_cast<double>(config.integer("ensemble.members"));
  const double steps = static_cast<double>(config.integer("lorenz05.steps"));
  const double every = static_cast<double>(config.integer("lorenz05.output_every"));
  const double snapshots = std::ceil(steps / every) + 1;
  const double t = precision_bytes(config);
  const bool baseline = config.string("benchmark.baseline") == "flat";
  Preflight plan{{},
                 "lorenz05.model_size",
                 "reduce lorenz05.model_size, ensemble.members or the snapshots (lorenz05.steps / "
                 "lorenz05.output_every, output.state: false), or use precision: float"};
  // Device: start and states, five work arrays per ensemble (the flat
  // layout's; the team layout needs fewer), the base state, the statistics
  // (their pass levels in double: a 16th of the members, a 16th of that, ...;
  // the mean and at most 64 node sums).
  plan.memory.device(members * n, (2 + 5 * (baseline ? 2 : 1)) * t + 8.0 / 15);
  plan.memory.device(n, t + 65 * 8);
  // Host: the start's mirror and its float64 copy, the final state (and the
  // baseline's in float64), the statistics of every snapshot and, with
  // output.state, every snapshot's states in float64 and converted back to T.
  plan.memory.host(members * n, 2 * t + 8 + (baseline ? 8 : 0));
  plan.memory.host(snapshots * n, 2 * 8);
  if (config.boolean("output.state")) plan.memory.host(snapshots * members * n, 8 + t);
  return plan;
}

Experiment lorenz05_experiment() {
  const char* summary = "Lorenz (2005) models I-III: ensembles integrated by RK4, snapshots, mean and spread";
  return {"lorenz05", summary, add_lorenz05_schema, run_lorenz05, preflight_lorenz05, check_lorenz05_ranks};
}

}  // namespace portasolve::drivers

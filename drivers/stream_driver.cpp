// experiment: stream. Times STREAM's kernels on the default execution space and
// checks the arrays against the scalar recurrence every element follows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>

#include "drivers/experiment.hpp"
#include "drivers/repeat_loop.hpp"
#include "solvers/stream/stream.hpp"

namespace portasolve::drivers {

void add_stream_schema(config::Schema& schema) {
  using config::Kind;
  add_integer(schema, "stream.size", "elements per array", 1 << 24).at_least(1);
  schema.add("stream.operations", Kind::ChoiceList, "kernels to time, in this order")
      .choices(stream::operation_names())
      .default_value(stream::operation_names())
      .min_items(1);
  add_real(schema, "stream.scalar", "s in scale and triad", 3.0);
}

namespace {

constexpr double initial_a = 1.0, initial_b = 2.0, initial_c = 0.0;

template <class T>
void reset(const stream::Arrays<T>& arrays) {
  Kokkos::deep_copy(arrays.a, static_cast<T>(initial_a));
  Kokkos::deep_copy(arrays.b, static_cast<T>(initial_b));
  Kokkos::deep_copy(arrays.c, static_cast<T>(initial_c));
}

template <class T>
void run_typed(RunContext& context) {
  const auto& config = context.config;
  const auto n = static_cast<std::size_t>(config.integer("stream.size"));
  const T scalar = static_cast<T>(config.real("stream.scalar"));
  std::vector<stream::Operation> operations;
  for (const auto& name : config.strings("stream.operations")) operations.push_back(stream::operation_from_name(name));
  const RepeatCount count(config);
  const int repeats = count.repeats;

  Stopwatch setup_watch;
  stream::Arrays<T> arrays;
  {
    ProfilingRegion region("stream/setup");
    arrays = stream::allocate<T>(n);
    reset(arrays);
  }
  const double setup_s = setup_watch.seconds();

  // time[r][k]: repeat r, operation k; arrays reset (untimed) before each
  // repeat so values never overflow however many repeats run.
  std::vector<std::vector<double>> time(repeats, std::vector<double>(operations.size()));
  Progress progress = context.make_progress("stream", count.total(), "repeat");
  const RepeatTimes solve = each_repeat(count, [&](const Repeat& repeat) {
    reset(arrays);
    ProfilingRegion region("stream/repeat");
    Stopwatch watch;
    double total = 0;
    for (std::size_t k = 0; k < operations.size(); ++k) {
      watch.restart();
      stream::apply(operations[k], arrays, scalar);
      const double seconds = watch.seconds();
      total += seconds;
      if (repeat.timed()) time[repeat.index][k] = seconds;
    }
    progress.update(repeat.done());
    return total;
  });
  progress.finish();

  // Every element starts equal, so each array stays uniform: follow one
  // element on the host in T, as the device does.
  T a = static_cast<T>(initial_a), b = static_cast<T>(initial_b), c = static_cast<T>(initial_c);
  for (const auto operation : operations) {
    switch (operation) {
      case stream::Operation::copy:
      case stream::Operation::deep_copy:
        c = a;
        break;
      case stream::Operation::scale:
        b = scalar * c;
        break;
      case stream::Operation::add:
        c = a + b;
        break;
      case stream::Operation::triad:
        a = b + scalar * c;
        break;
    }
  }
  double max_abs = 0, max_rel = 0;
  const auto check = [&](const View1D<T>& view, T expected) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    for (std::size_t i = 0; i < n; ++i) {
      const double error = std::fabs(static_cast<double>(host(i)) - static_cast<double>(expected));
      max_abs = std::max(max_abs, error);
      max_rel = std::max(max_rel, error / std::max(1e-300, std::fabs(static_cast<double>(expected))));
    }
  };
  check(arrays.a, a);
  check(arrays.b, b);
  check(arrays.c, c);

  auto& input = context.result.input();
  input.set_attribute("size", static_cast<std::int64_t>(n));
  input.set_attribute("scalar", static_cast<double>(scalar));
  input.set_attribute("element_bytes", static_cast<std::int64_t>(sizeof(T)));
  input.set_attribute("description", "three arrays of `size` elements, reset to a=1, b=2, c=0 before each repeat");

  std::vector<std::string> names;
  std::vector<double> best_bandwidth;
  std::vector<std::int64_t> bytes;
  std::vector<double> flat_times;
  for (std::size_t k = 0; k < operations.size(); ++k) {
    double best = INFINITY;
    for (int r = 0; r < repeats; ++r) best = std::min(best, time[r][k]);
    names.push_back(stream::operation_names()[static_cast<std::size_t>(operations[k])]);
    bytes.push_back(static_cast<std::int64_t>(stream::bytes_moved(operations[k], n, sizeof(T))));
    best_bandwidth.push_back(static_cast<double>(bytes.back()) / best / 1e9);
  }
  for (const auto& row : time) flat_times.insert(flat_times.end(), row.begin(), row.end());

  auto& output = context.result.output();
  output.write_strings("operation", names);
  output.write_dataset("bandwidth", best_bandwidth);
  output.set_attribute("units", "GB/s", "bandwidth");
  output.set_attribute("description", "bytes read + written over the fastest repeat's time", "bandwidth");
  output.write_dataset("bytes", bytes);
  output.set_attribute("units", "B", "bytes");
  output.set_attribute("description", "bytes each operation reads plus writes", "bytes");
  output.write_dataset("time", flat_times.data(), h5::Dims{static_cast<hsize_t>(repeats), operations.size()});
  output.set_attribute("units", "s", "time");
  output.set_attribute("description", "seconds per repeat (rows) and operation (columns)", "time");

  context.result.set_timing(setup_s, solve);
  context.result.set_validation("scalar recurrence followed on the host", max_abs, max_rel);

  context.out << "operation  bandwidth (GB/s)  best time (s)\n";
  for (std::size_t k = 0; k < names.size(); ++k) {
    char line[96];
    std::snprintf(line, sizeof line, "%-9s  %16.1f  %13.6f\n", names[k].c_str(), best_bandwidth[k],
                  static_cast<double>(bytes[k]) / (best_bandwidth[k] * 1e9));
    context.out << line;
  }
  context.out << "validation: max relative error " << max_rel << '\n';
  // Device code may fuse multiply-adds the host rounds twice: allow a few ulp.
  const double tolerance = 8 * static_cast<double>(std::numeric_limits<T>::epsilon());
  if (!(max_rel <= tolerance))
    throw SolverError("stream: arrays differ from the scalar recurrence (max relative error " +
                      std::to_string(max_rel) + ", allowed " + std::to_string(tolerance) + ")");
}

}  // namespace

void run_stream(RunContext& context) {
  with_precision(context.config, [&](auto zero) { run_typed<decltype(zero)>(context); });
}

Preflight preflight_stream(const config::Config& config) {
  const double n = static_cast<double>(config.integer("stream.size"));
  const double scalar_bytes = precision_bytes(config);
  Preflight plan{{}, "stream.size", "reduce stream.size or use precision: float"};
  plan.memory.device(3 * n, scalar_bytes);  // a, b, c
  plan.memory.host(3 * n, scalar_bytes);    // the mirrors the check copies back
  return plan;
}

Experiment stream_experiment() {
  const char* summary = "device memory bandwidth (STREAM copy, scale, add, triad)";
  return {"stream", summary, add_stream_schema, run_stream, preflight_stream};
}

}  // namespace portasolve::drivers

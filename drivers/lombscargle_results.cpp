#include "drivers/lombscargle_results.hpp"

#include <algorithm>
#include <cmath>

#include "core/host_threads.hpp"
#include "drivers/rank_blocks.hpp"
#include "solvers/lombscargle/model.hpp"

namespace portasolve::drivers::lombscargle_detail {

namespace ls = lombscargle;

h5::Storage series_storage(int level, const h5::Dims& dims) {
  if (level == 0) return h5::Storage{};
  constexpr hsize_t chunk_values = 32768;
  if (dims.size() == 1) return h5::Storage{h5::Dims{std::min(dims[0], chunk_values)}, level};
  const hsize_t columns = std::min(dims[1], chunk_values);
  const hsize_t rows = std::clamp<hsize_t>(chunk_values / columns, 1, dims[0]);
  return h5::Storage{h5::Dims{rows, columns}, level};
}

namespace {

// Per-series work (false-alarm probabilities, least-squares fits) is
// independent across series: on the host's cores while the device waits.
constexpr std::size_t series_per_host_thread = 256;
template <class F>
void for_each_series(std::size_t n, const F& f) {
  for_each_on_host_threads(n, series_per_host_thread, f);
}

}  // namespace

Summary summarize(const std::vector<ls::Series>& batch, const ls::FrequencyGrid& grid,
                  const std::vector<double>& frequency, const ls::PeakTable& table, const ls::Options& options,
                  const ChunkFap& fap) {
  const std::size_t series_count = batch.size();
  Summary summary;
  for (auto* values :
       {&summary.frequency, &summary.power, &summary.fap, &summary.amplitude, &summary.phase, &summary.offset})
    values->assign(series_count, NAN);
  // astropy's model parameters: the generalized form's, for every nterms.
  if (options.form == ls::Form::generalized)
    summary.model_width =
        (options.fit_mean ? std::size_t{1} : std::size_t{0}) + 2 * static_cast<std::size_t>(options.nterms);
  summary.model.assign(series_count * summary.model_width, NAN);
  for_each_series(series_count, [&](std::size_t s) {
    const std::int64_t best = table.best[s];
    if (best < 0) return;  // no finite power: NaN throughout
    const double power = table.best_power[s];
    summary.frequency[s] = frequency[best];
    summary.power[s] = power;
    summary.fap[s] = fap(batch, s, power);
    if (summary.model_width > 0) {
      const ls::ModelFit model = ls::fit_model(batch[s], grid.values[best], options);
      std::copy(model.parameters.begin(), model.parameters.end(), summary.model.begin() + s * summary.model_width);
      summary.offset[s] = model.offset;
      // One sinusoid does not describe a multi-term model: amplitude and phase NaN (write_summary says so).
      if (options.nterms > 1) return;
      // nterms 1: the sinusoid is the model's, a sin + b cos = A sin(w t + phase) with A cos(phase) = a and
      // A sin(phase) = b (a second fit of the same least squares cost as much again). Where fit_model leaves a
      // dependent column out (its coefficient 0), this is the fit without it, not NaN as fit_sinusoid gives.
      const double a = model.parameters[summary.model_width - 2], b = model.parameters[summary.model_width - 1];
      summary.amplitude[s] = std::hypot(a, b);
      summary.phase[s] = std::atan2(b, a);
      return;
    }
    const ls::SinusoidFit fit = ls::fit_sinusoid(batch[s], grid.values[best], options);
    summary.amplitude[s] = fit.amplitude;
    summary.phase[s] = fit.phase;
    summary.offset[s] = fit.offset;
  });
  return summary;
}

Summary gather_summary(const Ranks& ranks, std::int64_t series_count, const Summary& mine) {
  return Summary{gather_rows(ranks, series_count, 1, mine.frequency),
                 gather_rows(ranks, series_count, 1, mine.power),
                 gather_rows(ranks, series_count, 1, mine.fap),
                 gather_rows(ranks, series_count, 1, mine.amplitude),
                 gather_rows(ranks, series_count, 1, mine.phase),
                 gather_rows(ranks, series_count, 1, mine.offset),
                 gather_rows(ranks, series_count, static_cast<std::int64_t>(mine.model_width), mine.model),
                 mine.model_width};
}

void append_summary(Summary& all, const Summary& more) {
  const auto append = [](std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(all.frequency, more.frequency);
  append(all.power, more.power);
  append(all.fap, more.fap);
  append(all.amplitude, more.amplitude);
  append(all.phase, more.phase);
  append(all.offset, more.offset);
  append(all.model, more.model);
  all.model_width = more.model_width;
}

void write_summary(h5::Group& output, const Summary& all, const std::string& fap_method, int nterms, int compression) {
  h5::Group summary = output.create_group("summary");
  const h5::Dims dims{all.frequency.size()};
  const h5::Storage storage = series_storage(compression, dims);
  const auto write = [&](const char* name, const std::vector<double>& values) {
    summary.write_dataset(name, values.data(), dims, storage);
  };
  summary.set_attribute(
      "description",
      nterms == 1 ? "per series: the grid's highest power and the least-squares sinusoid there, "
                    "y ~ offset + amplitude sin(2 pi frequency t + phase)"
                  : "per series: the grid's highest power and the least-squares model there, y ~ offset + sum over k "
                    "= 1.." +
                        std::to_string(nterms) +
                        " of a_k sin(2 pi k frequency t) + b_k cos(2 pi k frequency t) (model_parameters); amplitude "
                        "and phase NaN (the model has " +
                        std::to_string(nterms) + " Fourier terms, not one sinusoid)");
  write("frequency", all.frequency);
  summary.set_attribute("description", "frequency of the highest power (the units of /output/frequency)", "frequency");
  write("power", all.power);
  write("amplitude", all.amplitude);
  summary.set_attribute("units", "units of y", "amplitude");
  write("phase", all.phase);
  summary.set_attribute("units", "radians", "phase");
  write("offset", all.offset);
  summary.set_attribute("units", "units of y", "offset");
  if (all.model_width > 0) {
    const h5::Dims model_dims{all.frequency.size(), all.model_width};
    summary.write_dataset("model_parameters", all.model.data(), model_dims, series_storage(compression, model_dims));
    const bool bias = all.model_width % 2 == 1;
    std::string columns = bias ? "offset" : "";
    for (int k = 1; k <= nterms; ++k) {
      const std::string harmonic = k == 1 ? "" : std::to_string(k) + " ";
      if (!columns.empty()) columns += ", ";
      columns += "sin(2 pi " + harmonic + "frequency t), cos(2 pi ";
      columns += harmonic + "frequency t)";
    }
    summary.set_attribute("columns", columns, "model_parameters");
    summary.set_attribute("units", "units of y", "model_parameters");
    summary.set_attribute("description",
                          "astropy's LombScargle.model_parameters(frequency) at each series' best frequency "
                          "(frequency in cycles per unit time, t as given): weighted least-squares coefficients "
                          "of the columns, fitted to y less its weighted mean with center_data (the mean not "
                          "among them: offset holds the model's constant, that mean plus the fitted offset)",
                          "model_parameters");
  }
  if (!fap_method.empty()) {
    write("fap", all.fap);
    summary.set_attribute("description", "false-alarm probability (" + fap_method + ") of the highest power", "fap");
  }
}

Peaks peaks_of(const std::vector<ls::Series>& batch, const ls::PeakTable& table, const std::vector<double>& frequency,
               const ChunkFap& fap) {
  const std::size_t count = table.count;
  Peaks peaks{std::vector<double>(batch.size() * count, NAN), table.peak_power,
              std::vector<double>(batch.size() * count, NAN)};
  for_each_series(batch.size(), [&](std::size_t s) {
    for (std::size_t p = 0; p < count; ++p) {
      const std::int64_t index = table.peaks[s * count + p];
      if (index < 0) continue;
      peaks.frequency[s * count + p] = frequency[index];
      peaks.fap[s * count + p] = fap(batch, s, table.peak_power[s * count + p]);
    }
  });
  return peaks;
}

void ChunkFap::prepare(const std::vector<ls::Series>& batch, double maximum_frequency) {
  contexts.assign(batch.size(), ls::FapContext{});
  if (!defined || bootstrap()) return;
  for_each_series(batch.size(), [&](std::size_t s) {
    if (batch[s].t.size() >= 4) contexts[s] = ls::fap_context(batch[s].t, batch[s].dy, maximum_frequency);
  });
}

void ResultRows::create(const SeriesCatalogue& catalogue, const std::vector<ls::Series>& first) {
  if (write_input) {
    const auto samples = static_cast<hsize_t>(catalogue.total_samples());
    const h5::Dims dims = ragged              ? h5::Dims{samples}
                          : series_count == 1 ? h5::Dims{samples}
                                              : h5::Dims{series_count, samples / series_count};
    if (ragged) input.create_dataset<std::int64_t>("count", {series_count});
    input.create_dataset<double>("t", dims);
    input.create_dataset<double>("y", dims);
    // `first` is empty on a rank without series (the NUFFT's series split with
    // fewer series than ranks): not rank 0, whose file alone is kept.
    if (!first.empty() && !first.front().dy.empty()) input.create_dataset<double>("dy", dims);
    if (!first.empty() && !first.front().weights.empty()) input.create_dataset<double>("weights", dims);
  }
  if (write_power) {
    const h5::Dims dims = series_count == 1 ? h5::Dims{m} : h5::Dims{series_count, m};
    output.create_dataset<double>("power", dims, series_storage(compression, dims));
  }
  if (peak_count > 0) {
    const h5::Dims dims{series_count, peak_count};
    for (const char* name : {"peak_frequency", "peak_power", "peak_fap"})
      output.create_dataset<double>(name, dims, series_storage(compression, dims));
  }
}

void ResultRows::write_input_rows(std::int64_t first, std::int64_t sample_offset,
                                  const std::vector<ls::Series>& chunk) {
  if (!writes || !write_input) return;
  std::vector<double> t, y, dy, weights;
  std::vector<std::int64_t> count;
  for (const auto& s : chunk) {
    t.insert(t.end(), s.t.begin(), s.t.end());
    y.insert(y.end(), s.y.begin(), s.y.end());
    dy.insert(dy.end(), s.dy.begin(), s.dy.end());
    weights.insert(weights.end(), s.weights.begin(), s.weights.end());
    count.push_back(static_cast<std::int64_t>(s.t.size()));
  }
  const bool by_sample = ragged || series_count == 1;
  const auto row = static_cast<hsize_t>(by_sample ? sample_offset : first);
  const auto rows = static_cast<hsize_t>(by_sample ? t.size() : chunk.size());
  if (ragged) input.write_rows("count", static_cast<hsize_t>(first), count.size(), count.data());
  input.write_rows("t", row, rows, t.data());
  input.write_rows("y", row, rows, y.data());
  if (!dy.empty()) input.write_rows("dy", row, rows, dy.data());
  if (!weights.empty()) input.write_rows("weights", row, rows, weights.data());
}

void ResultRows::write_output_rows(std::int64_t first, std::int64_t count, const std::vector<double>& power,
                                   const std::vector<double>& peak_frequency, const std::vector<double>& peak_power,
                                   const std::vector<double>& peak_fap) {
  if (!writes) return;
  const auto row = static_cast<hsize_t>(first), rows = static_cast<hsize_t>(count);
  if (write_power) {
    if (series_count == 1)
      output.write_rows("power", 0, m, power.data());
    else
      output.write_rows("power", row, rows, power.data());
  }
  if (peak_count > 0) {
    output.write_rows("peak_frequency", row, rows, peak_frequency.data());
    output.write_rows("peak_power", row, rows, peak_power.data());
    output.write_rows("peak_fap", row, rows, peak_fap.data());
  }
}

}  // namespace portasolve::drivers::lombscargle_detail

#pragma once
// What the lombscargle driver reports per series, a chunk at a time: the
// summary (the best frequency and the sinusoid fitted there), the peaks and
// their false-alarm probabilities, gathered over MPI ranks in series order,
// and the result datasets they are written to.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/hdf5.hpp"
#include "drivers/experiment.hpp"
#include "drivers/lombscargle_input.hpp"
#include "solvers/lombscargle/bootstrap.hpp"
#include "solvers/lombscargle/fap.hpp"
#include "solvers/lombscargle/peaks.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::drivers::lombscargle_detail {

// How output.compression (`level`, 0-9) stores a result dataset of `dims`,
// series first (power: series x frequency, peaks: series x peak, the summary:
// series; or one series' values): contiguous at level 0, else chunked along
// the series, chunks of about a quarter MiB (32768 values, whole rows where
// they fit, so a reader of one series decompresses little) each compressed
// by deflate at `level`.
h5::Storage series_storage(int level, const h5::Dims& dims);

// Per series of `batch`: the highest power on the grid, its frequency (in the
// output's units), its false-alarm probability (when `fap_method` is given)
// and the model fitted there by weighted least squares: nterms 1, the
// sinusoid (amplitude, phase, offset: y ~ offset + amplitude sin(2 pi f t +
// phase)); the generalized form, astropy's model_parameters (fit_model: a
// row of model_width per series) with offset the model's constant for every
// nterms. `power` holds batch's rows (this rank's series over MPI ranks).
struct Summary {
  std::vector<double> frequency, power, fap, amplitude, phase, offset;
  std::vector<double> model;    // series x model_width, row-major
  std::size_t model_width = 0;  // 0: none (the classic form)
};

// What a chunk's false-alarm probabilities need per series: the FapContext
// of the formulas (made on the host threads by prepare), or the sorted
// bootstrap maxima (made on the device before).
struct ChunkFap {
  bool defined = false;  // by the form, normalization and nterms
  lombscargle::FapMethod method = lombscargle::FapMethod::baluev;
  std::vector<lombscargle::FapContext> contexts;
  std::vector<std::vector<double>> maxima;

  bool bootstrap() const { return method == lombscargle::FapMethod::bootstrap; }
  // The formulas' contexts, where a series has the 4 samples Baluev's bound needs.
  void prepare(const std::vector<lombscargle::Series>& batch, double maximum_frequency);
  // NaN where not defined.
  double operator()(const std::vector<lombscargle::Series>& batch, std::size_t s, double power) const {
    if (!defined || std::isnan(power)) return NAN;
    if (bootstrap()) return lombscargle::fap_bootstrap(power, maxima[s]);
    if (batch[s].t.size() < 4) return NAN;
    return lombscargle::false_alarm_probability(std::clamp(power, 0.0, 1.0), contexts[s], method);
  }
};

Summary summarize(const std::vector<lombscargle::Series>& batch, const lombscargle::FrequencyGrid& grid,
                  const std::vector<double>& frequency, const lombscargle::PeakTable& table,
                  const lombscargle::Options& options, const ChunkFap& fap);

// Every rank's summaries in series order.
Summary gather_summary(const Ranks& ranks, std::int64_t series_count, const Summary& mine);

void append_summary(Summary& all, const Summary& more);

// /output/summary, stored as series_storage says for `compression`, with
// model_parameters where the summary has them. nterms > 1: amplitude and
// phase are NaN.
void write_summary(h5::Group& output, const Summary& all, const std::string& fap_method, int nterms, int compression);

// The peaks of each series (`count` per series, NaN-padded): frequency and
// power from the device's table, and false-alarm probabilities (NaN where
// not defined).
struct Peaks {
  std::vector<double> frequency, power, fap;
};
Peaks peaks_of(const std::vector<lombscargle::Series>& batch, const lombscargle::PeakTable& table,
               const std::vector<double>& frequency, const ChunkFap& fap);

// The result datasets, created whole before the first chunk and written a
// chunk's rows at a time (by rank 0 over MPI ranks: the others' files are
// dropped).
struct ResultRows {
  h5::Group& input;
  h5::Group& output;
  bool writes;
  bool write_input, write_power;
  std::size_t series_count, m, peak_count;
  bool ragged;
  int compression;  // output.compression: power and peaks stored as series_storage says

  void create(const SeriesCatalogue& catalogue, const std::vector<lombscargle::Series>& first);

  // The series [first, first + chunk.size()) as read; `sample_offset`: the
  // samples before them (the ragged layout's row of the first).
  void write_input_rows(std::int64_t first, std::int64_t sample_offset, const std::vector<lombscargle::Series>& chunk);

  void write_output_rows(std::int64_t first, std::int64_t count, const std::vector<double>& power,
                         const std::vector<double>& peak_frequency, const std::vector<double>& peak_power,
                         const std::vector<double>& peak_fap);
};

}  // namespace portasolve::drivers::lombscargle_detail

#pragma once
// The time series a lombscargle config asks for: generated, or read from CSV
// or HDF5.
#include <string>
#include <vector>

#include "app/config.hpp"
#include "solvers/lombscargle/periodogram.hpp"

namespace portasolve::drivers {

void add_lombscargle_input_schema(config::Schema& schema);
std::vector<lombscargle::Series> load_lombscargle_input(const config::Config& config);

// About how many data rows a CSV file holds, from its size and its shortest
// of the first rows (errs high), without reading it all; IoError if it
// cannot be opened.
double csv_rows_estimate(const std::string& file);

}  // namespace portasolve::drivers

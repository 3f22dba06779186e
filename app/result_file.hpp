#pragma once
// The layout every portasolve result file shares, written atomically: the
// file is built under a temporary name in the target's folder and renamed into
// place by commit(). Destroyed without commit (an error, Ctrl-C), it leaves
// nothing behind. An existing target is never touched unless `overwrite`.
//
//   /           attributes: portasolve_version, experiment, created, command_line,
//               host, kokkos_version, execution_space, device, precision, config
//   /input      what was solved
//   /output     results
//   /timing     attributes setup_s, solve_s; dataset solve_s_per_repeat
//               (+ baseline, baseline_s, speedup, baseline_s_per_repeat)
//   /validation attributes reference, max_abs_err, max_rel_err (when checked)
#include <optional>
#include <string>
#include <vector>

#include "app/hdf5.hpp"
#include "core/errors.hpp"
#include "core/timer.hpp"

namespace portasolve {

struct Provenance {
  std::string experiment;
  std::string precision;     // "float" or "double"
  std::string command_line;  // as the user typed it
  std::string config_yaml;   // the effective config, defaults filled in
};

// A file built under a temporary name beside its target (same file system)
// and moved into place by commit(): the target either keeps its old bytes or
// gets all the new ones. Destroyed without commit, it removes the temporary.
class StagedFile {
 public:
  // Reserves the temporary `.NAME.partial-XXXXXX` (creating missing folders
  // if `create_folders`). Throws IoError naming the folder.
  StagedFile(std::string target, bool overwrite, bool create_folders = true);
  ~StagedFile() { discard(); }
  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  StagedFile(const StagedFile&) = delete;

  const std::string& target() const noexcept { return target_; }
  const std::string& temporary_path() const noexcept { return temporary_; }
  // Writes `bytes` to the temporary: every write, the fsync and the close
  // checked. Throws IoError naming the target and the reason (e.g. "No space
  // left on device").
  void write(const std::string& bytes, const std::string& what = "file");
  // Moves the temporary to the target: rename() with `overwrite`, else link()
  // (which refuses a file that appeared meanwhile). Refuses a target that is
  // not a regular file (a device, a folder, ...). Throws IoError.
  void commit();
  void discard() noexcept;

 private:
  std::string target_, temporary_;
  bool overwrite_;
  int fd_ = -1;
};

class ResultFile {
 public:
  // Throws ConfigError (at `path_origin`) if `path` exists and !overwrite.
  ResultFile(std::string path, bool overwrite, const Provenance& provenance, const SourceLocation& path_origin = {});
  // The same layout in memory, never written anywhere (commit() and
  // add_file() keep nothing): for the MPI ranks other than the one that
  // writes, so every rank runs the same driver code.
  struct Discarded {};
  ResultFile(Discarded, const Provenance& provenance);
  ~ResultFile();
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;

  h5::Group& input() { return input_; }
  h5::Group& output() { return output_; }
  h5::Group& timing() { return timing_; }
  void set_timing(double setup_s, const RepeatTimes& solve);
  // A baseline timed in the same run (after set_timing): /timing attributes
  // baseline, baseline_s, speedup (baseline_s / solve_s) and a
  // baseline_s_per_repeat dataset.
  void set_baseline(const std::string& name, const RepeatTimes& baseline);
  void set_validation(const std::string& reference, double max_abs_err, double max_rel_err);

  // Another output of the run (e.g. a PGM image from config key `key`):
  // written now under a temporary name, moved into place by commit() after
  // the result file, under the same overwrite rule; a run that fails leaves
  // neither. Throws ConfigError at `origin` if `path` is the result file's
  // (naming `key` and output.path) or another added file's, exists without
  // overwrite or is not a regular file; IoError if it cannot be written.
  void add_file(const std::string& path, const std::string& bytes, const std::string& key, const SourceLocation& origin,
                const std::string& what = "file");

  // Closes the HDF5 file, which is not moved into place yet: for writers
  // that open it once more themselves (the MPI ranks' collective writes,
  // parallel_hdf5.hpp). Nothing may be added to the file after this.
  void close_file();
  // Closes the file (unless close_file() did) and moves it (and the added
  // files) to the final paths.
  void commit();
  const std::string& path() const noexcept { return path_; }
  // The temporary the file is built under (empty when Discarded).
  std::string temporary_path() const { return staged_ ? staged_->temporary_path() : std::string(); }

 private:
  void write_provenance(const Provenance& provenance);
  std::string path_;
  bool overwrite_;
  bool committed_ = false;
  bool file_closed_ = false;
  double solve_s_ = 0;
  std::optional<StagedFile> staged_;  // empty when Discarded; before file_: it outlives the HDF5 file, and removes the
                                      // temporary if file_ throws
  h5::File file_;
  h5::Group input_, output_, timing_;
  std::vector<StagedFile> added_;
  std::vector<std::string> added_keys_;
};

// Throws ConfigError (key `key`) if `path` exists and may not be replaced, or
// is something other than a regular file; used before any work starts so a
// run never computes into a refusal.
void check_output_target(const std::string& path, bool overwrite, const SourceLocation& path_origin,
                         const std::string& key = "output.path");

// "a directory", "a character device", ... for what is at `path`; empty when
// nothing is or it is a regular file (symbolic links followed).
std::string non_regular_file_kind(const std::string& path);

// "2026-11-21T20:43:00Z"
std::string utc_timestamp_now();

}  // namespace portasolve

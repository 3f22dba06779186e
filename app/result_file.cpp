#include "app/result_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <utility>

#include "app/version.hpp"
#include "core/kokkos_session.hpp"

namespace portasolve {

namespace fs = std::filesystem;

std::string utc_timestamp_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string non_regular_file_kind(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0 || S_ISREG(status.st_mode)) return {};
  if (S_ISDIR(status.st_mode)) return "a directory";
  if (S_ISCHR(status.st_mode)) return "a character device";
  if (S_ISBLK(status.st_mode)) return "a block device";
  if (S_ISFIFO(status.st_mode)) return "a named pipe";
  if (S_ISSOCK(status.st_mode)) return "a socket";
  return "not a regular file";
}

void check_output_target(const std::string& path, bool overwrite, const SourceLocation& path_origin,
                         const std::string& key) {
  if (path.empty()) throw ConfigError(path_origin, key, "empty", "a file path");
  const std::string kind = non_regular_file_kind(path);
  if (!kind.empty())
    throw ConfigError(path_origin, key, "'" + path + "' is " + kind + ", not a regular file",
                      "the path of a regular file (new, or replaced with --overwrite)");
  std::error_code error;
  if (!overwrite && fs::exists(fs::symlink_status(path, error)))
    throw ConfigError(path_origin, key, "'" + path + "' exists", "a new path, or --overwrite / output.overwrite: true");
}

namespace {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

// The same file, whether or not it exists yet (compared by path after
// resolving what exists of it, or by identity when both exist).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  if (fs::equivalent(a, b, error)) return true;
  const fs::path x = fs::weakly_canonical(fs::absolute(a, error), error);
  const fs::path y = fs::weakly_canonical(fs::absolute(b, error), error);
  return x == y;
}

}  // namespace

StagedFile::StagedFile(std::string target, bool overwrite, bool create_folders)
    : target_(std::move(target)), overwrite_(overwrite) {
  const std::string kind = non_regular_file_kind(target_);
  if (!kind.empty()) throw IoError("cannot write '" + target_ + "': it is " + kind + ", not a regular file");
  const fs::path target_path(target_);
  fs::path folder = target_path.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code error;
  if (create_folders) fs::create_directories(folder, error);
  if (error) throw IoError("cannot create folder '" + folder.string() + "': " + error.message());
  // A unique, reserved name beside the target, so the final rename stays
  // within one file system.
  std::string pattern = (folder / ("." + target_path.filename().string() + ".partial-XXXXXX")).string();
  fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd_ < 0) throw IoError("cannot create a file in '" + folder.string() + "': " + std::strerror(errno));
  temporary_ = pattern;
  // mkstemp creates 0600; an output gets the usual permissions.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::exchange(other.temporary_, std::string())),
      overwrite_(other.overwrite_),
      fd_(std::exchange(other.fd_, -1)) {}

void StagedFile::write(const std::string& bytes, const std::string& what) {
  const auto fail = [&](const char* step) {
    throw IoError("cannot write " + what + " '" + target_ + "': " + step + " failed: " + std::strerror(errno));
  };
  if (fd_ < 0) {
    errno = EBADF;
    fail("open");
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) fail("write");
    done += static_cast<std::size_t>(put);
  }
  if (::fsync(fd_) != 0 && errno != EINVAL) fail("fsync");
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) fail("close");
}

void StagedFile::commit() {
  if (temporary_.empty()) throw IoError("cannot move '" + target_ + "' into place twice");
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  const std::string kind = non_regular_file_kind(target_);
  if (!kind.empty()) throw IoError("cannot replace '" + target_ + "': it is " + kind + ", not a regular file");
  if (overwrite_) {
    if (std::rename(temporary_.c_str(), target_.c_str()) != 0)
      throw IoError("cannot move the result into '" + target_ + "': " + std::strerror(errno));
  } else {
    // link() refuses to replace a file that appeared meanwhile.
    if (::link(temporary_.c_str(), target_.c_str()) != 0)
      throw IoError("cannot create '" + target_ + "': " + std::strerror(errno));
    std::remove(temporary_.c_str());
  }
  temporary_.clear();
}

void StagedFile::discard() noexcept {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!temporary_.empty()) std::remove(temporary_.c_str());
  temporary_.clear();
}

namespace {

StagedFile checked_staged_file(const std::string& path, bool overwrite, const SourceLocation& path_origin) {
  check_output_target(path, overwrite, path_origin);
  return StagedFile(path, overwrite);
}

}  // namespace

ResultFile::ResultFile(std::string path, bool overwrite, const Provenance& provenance,
                       const SourceLocation& path_origin)
    : path_(std::move(path)),
      overwrite_(overwrite),
      staged_(checked_staged_file(path_, overwrite, path_origin)),
      file_(h5::File::create(staged_->temporary_path(), /*replace=*/true)),
      input_(file_.create_group("input")),
      output_(file_.create_group("output")),
      timing_(file_.create_group("timing")) {
  write_provenance(provenance);
}

ResultFile::ResultFile(Discarded, const Provenance& provenance)
    : path_("(discarded)"),
      overwrite_(false),
      file_(h5::File::create_in_memory("portasolve-discarded.h5")),
      input_(file_.create_group("input")),
      output_(file_.create_group("output")),
      timing_(file_.create_group("timing")) {
  write_provenance(provenance);
}

void ResultFile::write_provenance(const Provenance& provenance) {
  const BackendInfo backend = backend_info();
  file_.set_attribute("portasolve_version", version);
  file_.set_attribute("experiment", provenance.experiment);
  file_.set_attribute("created", utc_timestamp_now());
  file_.set_attribute("command_line", provenance.command_line);
  file_.set_attribute("host", host_name());
  file_.set_attribute("kokkos_version", backend.kokkos_version);
  file_.set_attribute("execution_space", backend.execution_space);
  file_.set_attribute("device", backend.device);
  file_.set_attribute("precision", provenance.precision);
  file_.set_attribute("config", provenance.config_yaml);
}

ResultFile::~ResultFile() {
  if (committed_) return;
  // Each handle closed once: the groups, then the file without writing more;
  // staged_ and added_ remove their temporaries.
  input_ = h5::Group(h5::Handle(), path_, "/input");
  output_ = h5::Group(h5::Handle(), path_, "/output");
  timing_ = h5::Group(h5::Handle(), path_, "/timing");
  file_.abandon();
}

void ResultFile::set_timing(double setup_s, const RepeatTimes& solve) {
  timing_.set_attribute("setup_s", setup_s);
  solve_s_ = solve.median();
  timing_.set_attribute("solve_s", solve_s_);
  timing_.set_attribute("solve_s_statistic", "median over repeats");
  timing_.write_dataset("solve_s_per_repeat", solve.seconds);
  timing_.set_attribute("units", "s", "solve_s_per_repeat");
}

void ResultFile::set_baseline(const std::string& name, const RepeatTimes& baseline) {
  timing_.set_attribute("baseline", name);
  timing_.set_attribute("baseline_s", baseline.median());
  timing_.set_attribute("speedup", baseline.median() / solve_s_);
  timing_.write_dataset("baseline_s_per_repeat", baseline.seconds);
  timing_.set_attribute("units", "s", "baseline_s_per_repeat");
}

void ResultFile::set_validation(const std::string& reference, double max_abs_err, double max_rel_err) {
  h5::Group validation = file_.has("validation") ? file_.open_group("validation") : file_.create_group("validation");
  validation.set_attribute("reference", reference);
  validation.set_attribute("max_abs_err", max_abs_err);
  validation.set_attribute("max_rel_err", max_rel_err);
}

void ResultFile::add_file(const std::string& path, const std::string& bytes, const std::string& key,
                          const SourceLocation& origin, const std::string& what) {
  if (same_file(path, path_))
    throw ConfigError(origin, key, "'" + path + "' is also output.path: one file cannot hold both",
                      "a path other than output.path's");
  for (std::size_t k = 0; k < added_.size(); ++k)
    if (same_file(path, added_[k].target()))
      throw ConfigError(origin, key, "'" + path + "' is also " + added_keys_[k], "a path of its own");
  if (!staged_) return;  // Discarded
  check_output_target(path, overwrite_, origin, key);
  StagedFile staged(path, overwrite_);
  staged.write(bytes, what);
  added_.push_back(std::move(staged));
  added_keys_.push_back(key);
}

void ResultFile::close_file() {
  if (file_closed_) return;
  input_ = h5::Group(h5::Handle(), path_, "/input");
  output_ = h5::Group(h5::Handle(), path_, "/output");
  timing_ = h5::Group(h5::Handle(), path_, "/timing");
  file_closed_ = true;
  file_.close();
}

void ResultFile::commit() {
  if (committed_) return;
  close_file();
  committed_ = true;
  if (!staged_) return;  // Discarded
  staged_->commit();
  // The result file is in place; an added file that cannot follow it is an
  // error (the result file stays: it is complete).
  for (auto& added : added_) added.commit();
}

}  // namespace portasolve

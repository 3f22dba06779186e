#pragma once
// A thin RAII layer over the HDF5 C API: groups, attributes and datasets of
// the types portasolve writes, and reading them back. Failures throw IoError
// naming the file and object; HDF5's own error stack printing is switched off.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace portasolve::h5 {

// Held by every function of this layer while it calls HDF5: one process-wide
// (recursive) lock, so threads may use the layer at once (the Lomb-Scargle
// pipeline reads its next chunk while the last one is written) also where the
// library itself is not thread-safe, as Debian's parallel HDF5 is not.
class LibraryLock {
 public:
  LibraryLock();
  ~LibraryLock();
  LibraryLock(const LibraryLock&) = delete;
  LibraryLock& operator=(const LibraryLock&) = delete;
};

// Owns one hid_t and closes it with the matching H5*close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  void reset();
  hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }  // caller closes
  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

template <class T>
hid_t native_type();  // specialised in hdf5.cpp for every type we store

using Dims = std::vector<hsize_t>;

// How a dataset is laid out in the file: contiguous (chunk empty), or in
// chunks of `chunk` (one extent per dimension, each 1..the dataset's),
// each compressed by deflate at level `deflate` (1-9; 0: not compressed).
struct Storage {
  Dims chunk;
  int deflate = 0;
};

class Group {
 public:
  Group(Handle handle, std::string file, std::string path);

  Group create_group(const std::string& name);
  Group open_group(const std::string& name) const;
  bool has(const std::string& name) const;
  const std::string& path() const noexcept { return path_; }

  // Attributes on this group, or on a dataset of it when `dataset` is given.
  void set_attribute(const std::string& name, const std::string& value, const std::string& dataset = {});
  void set_attribute(const std::string& name, const char* value, const std::string& dataset = {});
  void set_attribute(const std::string& name, std::int64_t value, const std::string& dataset = {});
  void set_attribute(const std::string& name, double value, const std::string& dataset = {});
  void set_attribute(const std::string& name, const std::vector<double>& value, const std::string& dataset = {});
  std::string string_attribute(const std::string& name, const std::string& dataset = {}) const;
  std::int64_t int_attribute(const std::string& name, const std::string& dataset = {}) const;
  double double_attribute(const std::string& name, const std::string& dataset = {}) const;
  std::vector<double> double_list_attribute(const std::string& name, const std::string& dataset = {}) const;
  std::vector<std::string> attribute_names(const std::string& dataset = {}) const;

  // Row-major data of shape `dims`.
  template <class T>
  void write_dataset(const std::string& name, const T* data, const Dims& dims);
  // The same, chunked and compressed as `storage` says (contiguous when its
  // chunk is empty); readers need nothing else (h5py decompresses).
  template <class T>
  void write_dataset(const std::string& name, const T* data, const Dims& dims, const Storage& storage);
  template <class T>
  void write_dataset(const std::string& name, const std::vector<T>& data) {
    write_dataset(name, data.data(), Dims{data.size()});
  }
  void write_strings(const std::string& name, const std::vector<std::string>& values);

  // A dataset written in parts: created here with its whole shape (filled
  // with NaN for floating types, 0 otherwise, until written), then written
  // `rows` rows (first dimension, every other extent whole) at a time by
  // write_rows, so a result larger than memory streams to the file.
  template <class T>
  void create_dataset(const std::string& name, const Dims& dims, const Storage& storage = {});
  template <class T>
  void write_rows(const std::string& name, hsize_t first_row, hsize_t rows, const T* data);
  // A contiguous dataset whose file space is reserved now and never filled
  // here: its bytes come later from every MPI rank at once
  // (parallel_hdf5.hpp). Until written it holds whatever the file had there.
  template <class T>
  void create_unwritten_dataset(const std::string& name, const Dims& dims);

  template <class T>
  std::vector<T> read_dataset(const std::string& name, Dims* dims = nullptr) const;
  // Rows [first_row, first_row + rows) of a dataset (first dimension; every
  // other extent whole); IoError past its end.
  template <class T>
  std::vector<T> read_rows(const std::string& name, hsize_t first_row, hsize_t rows) const;
  // The same into `values` (resized; its memory reused where large enough):
  // for a reader of many blocks, to whom fresh arrays cost their page faults
  // and zero fill as much again as the read.
  template <class T>
  void read_rows_into(const std::string& name, hsize_t first_row, hsize_t rows, std::vector<T>& values) const;
  // The box [first, first + count) of a dataset, row-major (one entry per
  // dimension): what an MPI rank reads of its block; IoError if it does not fit.
  template <class T>
  std::vector<T> read_block(const std::string& name, const Dims& first, const Dims& count) const;
  std::vector<std::string> read_strings(const std::string& name) const;
  Dims dataset_dims(const std::string& name) const;
  // Whether the dataset holds 4-byte floating-point values (read as float,
  // they need no conversion: half the bytes, and HDF5's conversion to
  // double costs as much as the read).
  bool holds_single_precision(const std::string& name) const;

 protected:
  std::string where(const std::string& name = {}) const;
  Handle object_for_attributes(const std::string& dataset) const;
  Handle handle_;
  std::string file_;
  std::string path_;
};

class File : public Group {
 public:
  // Fails if the file exists, unless `replace` (then it is truncated).
  static File create(const std::string& filename, bool replace = false);
  static File open_read_only(const std::string& filename);
  // A file that lives in memory only and is dropped when closed (HDF5's core
  // driver without backing store): for a rank whose writes nobody keeps.
  static File create_in_memory(const std::string& name);
  File(File&&) = default;
  File& operator=(File&&) = delete;
  // A file not closed yet is closed, its write failures ignored.
  ~File();
  void flush();
  // Closes now, and with it every object still open in the file; after this
  // the object must not be used. Throws IoError naming the file and the
  // failed operation if what HDF5 still had to write (on closing) could not
  // be written; the file is closed either way.
  void close();
  // Closes without writing anything more, for a file about to be removed
  // (after an error). Never fails.
  void abandon() noexcept;

 private:
  File(Handle file, Handle root, std::string filename, void* driver);
  std::string finish(bool discard) noexcept;
  Handle file_handle_;
  void* driver_ = nullptr;  // the write driver's state for files we create, null when read-only
};

// Turns off HDF5's printing of its error stack (we throw instead). Idempotent.
void silence_library_errors();

extern template void Group::write_dataset(const std::string&, const float*, const Dims&);
extern template void Group::write_dataset(const std::string&, const double*, const Dims&);
extern template void Group::write_dataset(const std::string&, const float*, const Dims&, const Storage&);
extern template void Group::write_dataset(const std::string&, const double*, const Dims&, const Storage&);
extern template void Group::write_dataset(const std::string&, const std::uint8_t*, const Dims&);
extern template void Group::write_dataset(const std::string&, const std::uint16_t*, const Dims&);
extern template void Group::write_dataset(const std::string&, const std::int32_t*, const Dims&);
extern template void Group::write_dataset(const std::string&, const std::int64_t*, const Dims&);
extern template void Group::create_dataset<float>(const std::string&, const Dims&, const Storage&);
extern template void Group::create_dataset<double>(const std::string&, const Dims&, const Storage&);
extern template void Group::create_dataset<std::int64_t>(const std::string&, const Dims&, const Storage&);
extern template void Group::create_unwritten_dataset<float>(const std::string&, const Dims&);
extern template void Group::create_unwritten_dataset<double>(const std::string&, const Dims&);
extern template void Group::create_unwritten_dataset<std::uint8_t>(const std::string&, const Dims&);
extern template void Group::create_unwritten_dataset<std::uint16_t>(const std::string&, const Dims&);
extern template void Group::create_unwritten_dataset<std::int32_t>(const std::string&, const Dims&);
extern template void Group::write_rows(const std::string&, hsize_t, hsize_t, const float*);
extern template void Group::write_rows(const std::string&, hsize_t, hsize_t, const double*);
extern template void Group::write_rows(const std::string&, hsize_t, hsize_t, const std::int64_t*);
extern template std::vector<double> Group::read_rows(const std::string&, hsize_t, hsize_t) const;
extern template std::vector<std::int64_t> Group::read_rows(const std::string&, hsize_t, hsize_t) const;
extern template void Group::read_rows_into(const std::string&, hsize_t, hsize_t, std::vector<double>&) const;
extern template void Group::read_rows_into(const std::string&, hsize_t, hsize_t, std::vector<float>&) const;
extern template std::vector<double> Group::read_block(const std::string&, const Dims&, const Dims&) const;
extern template std::vector<float> Group::read_dataset(const std::string&, Dims*) const;
extern template std::vector<double> Group::read_dataset(const std::string&, Dims*) const;
extern template std::vector<std::uint8_t> Group::read_dataset(const std::string&, Dims*) const;
extern template std::vector<std::uint16_t> Group::read_dataset(const std::string&, Dims*) const;
extern template std::vector<std::int32_t> Group::read_dataset(const std::string&, Dims*) const;
extern template std::vector<std::int64_t> Group::read_dataset(const std::string&, Dims*) const;

}  // namespace portasolve::h5

#include "app/hdf5.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <type_traits>
#include <utility>

#include "core/errors.hpp"

namespace portasolve::h5 {

namespace {
std::recursive_mutex& library_mutex() {
  static std::recursive_mutex mutex;
  return mutex;
}
}  // namespace

LibraryLock::LibraryLock() { library_mutex().lock(); }
LibraryLock::~LibraryLock() { library_mutex().unlock(); }

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, H5I_INVALID_HID);
    closer_ = other.closer_;
  }
  return *this;
}

void Handle::reset() {
  const LibraryLock lock;
  if (id_ >= 0 && closer_) closer_(id_);
  id_ = H5I_INVALID_HID;
}

void silence_library_errors() {
  const LibraryLock lock;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

template <class T>
hid_t native_type() {
  const LibraryLock lock;
  if constexpr (std::is_same_v<T, float>)
    return H5T_NATIVE_FLOAT;
  else if constexpr (std::is_same_v<T, double>)
    return H5T_NATIVE_DOUBLE;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return H5T_NATIVE_UINT8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return H5T_NATIVE_UINT16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return H5T_NATIVE_INT32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return H5T_NATIVE_INT64;
  else
    static_assert(!std::is_same_v<T, T>, "no HDF5 type for this type");
}
template hid_t native_type<float>();
template hid_t native_type<double>();
template hid_t native_type<std::uint8_t>();
template hid_t native_type<std::uint16_t>();
template hid_t native_type<std::int32_t>();
template hid_t native_type<std::int64_t>();

namespace {

// Variable-length UTF-8: h5py reads these as str, not bytes.
Handle string_type() {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

Handle simple_space(const Dims& dims) {
  return Handle(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
}

std::string join_path(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

}  // namespace

Group::Group(Handle handle, std::string file, std::string path)
    : handle_(std::move(handle)), file_(std::move(file)), path_(std::move(path)) {}

std::string Group::where(const std::string& name) const {
  return file_ + ":" + (name.empty() ? path_ : join_path(path_, name));
}

Group Group::create_group(const std::string& name) {
  const LibraryLock lock;
  Handle group(H5Gcreate2(handle_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.valid()) throw IoError("cannot create HDF5 group " + where(name));
  return Group(std::move(group), file_, join_path(path_, name));
}

Group Group::open_group(const std::string& name) const {
  const LibraryLock lock;
  Handle group(H5Gopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
  if (!group.valid()) throw IoError("no HDF5 group " + where(name));
  return Group(std::move(group), file_, join_path(path_, name));
}

bool Group::has(const std::string& name) const {
  const LibraryLock lock;
  return H5Lexists(handle_.get(), name.c_str(), H5P_DEFAULT) > 0;
}

Handle Group::object_for_attributes(const std::string& dataset) const {
  if (dataset.empty()) {
    const hid_t id = handle_.get();
    H5Iinc_ref(id);  // the returned handle drops its own reference
    return Handle(id, H5Idec_ref);
  }
  Handle object(H5Dopen2(handle_.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!object.valid()) throw IoError("no HDF5 dataset " + where(dataset));
  return object;
}

namespace {

void write_attribute(hid_t object, const std::string& name, hid_t type, hid_t space, const void* data,
                     const std::string& where) {
  if (H5Aexists(object, name.c_str()) > 0) H5Adelete(object, name.c_str());
  Handle attribute(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.get(), type, data) < 0)
    throw IoError("cannot write HDF5 attribute '" + name + "' on " + where);
}

Handle open_attribute(hid_t object, const std::string& name, const std::string& where) {
  Handle attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attribute.valid()) throw IoError("no HDF5 attribute '" + name + "' on " + where);
  return attribute;
}

}  // namespace

void Group::set_attribute(const std::string& name, const std::string& value, const std::string& dataset) {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle type = string_type();
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const char* text = value.c_str();
  write_attribute(object.get(), name, type.get(), space.get(), &text, where(dataset));
}

void Group::set_attribute(const std::string& name, const char* value, const std::string& dataset) {
  const LibraryLock lock;
  set_attribute(name, std::string(value), dataset);
}

void Group::set_attribute(const std::string& name, std::int64_t value, const std::string& dataset) {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  write_attribute(object.get(), name, H5T_NATIVE_INT64, space.get(), &value, where(dataset));
}

void Group::set_attribute(const std::string& name, double value, const std::string& dataset) {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  write_attribute(object.get(), name, H5T_NATIVE_DOUBLE, space.get(), &value, where(dataset));
}

void Group::set_attribute(const std::string& name, const std::vector<double>& value, const std::string& dataset) {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle space = simple_space(Dims{value.size()});
  write_attribute(object.get(), name, H5T_NATIVE_DOUBLE, space.get(), value.data(), where(dataset));
}

std::string Group::string_attribute(const std::string& name, const std::string& dataset) const {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle attribute = open_attribute(object.get(), name, where(dataset));
  const Handle stored(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(stored.get()) != H5T_STRING)
    throw IoError("HDF5 attribute '" + name + "' on " + where(dataset) + " is not a string");
  if (H5Tis_variable_str(stored.get()) > 0) {
    const Handle type = string_type();
    char* text = nullptr;
    if (H5Aread(attribute.get(), type.get(), &text) < 0)
      throw IoError("cannot read HDF5 attribute '" + name + "' on " + where(dataset));
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
  }
  std::string value(H5Tget_size(stored.get()), '\0');
  if (H5Aread(attribute.get(), stored.get(), value.data()) < 0)
    throw IoError("cannot read HDF5 attribute '" + name + "' on " + where(dataset));
  return value.substr(0, value.find('\0'));
}

std::int64_t Group::int_attribute(const std::string& name, const std::string& dataset) const {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle attribute = open_attribute(object.get(), name, where(dataset));
  std::int64_t value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_INT64, &value) < 0)
    throw IoError("cannot read HDF5 attribute '" + name + "' on " + where(dataset) + " as an integer");
  return value;
}

double Group::double_attribute(const std::string& name, const std::string& dataset) const {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle attribute = open_attribute(object.get(), name, where(dataset));
  double value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0)
    throw IoError("cannot read HDF5 attribute '" + name + "' on " + where(dataset) + " as a number");
  return value;
}

std::vector<double> Group::double_list_attribute(const std::string& name, const std::string& dataset) const {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  const Handle attribute = open_attribute(object.get(), name, where(dataset));
  const Handle space(H5Aget_space(attribute.get()), H5Sclose);
  std::vector<double> value(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
  if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, value.data()) < 0)
    throw IoError("cannot read HDF5 attribute '" + name + "' on " + where(dataset) + " as numbers");
  return value;
}

std::vector<std::string> Group::attribute_names(const std::string& dataset) const {
  const LibraryLock lock;
  const Handle object = object_for_attributes(dataset);
  H5O_info_t info;
  if (H5Oget_info2(object.get(), &info, H5O_INFO_NUM_ATTRS) < 0) throw IoError("cannot inspect " + where(dataset));
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.num_attrs; ++i) {
    const ssize_t length =
        H5Aget_name_by_idx(object.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    std::string name(static_cast<std::size_t>(length), '\0');
    H5Aget_name_by_idx(object.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size() + 1, H5P_DEFAULT);
    names.push_back(name);
  }
  return names;
}

template <class T>
void Group::write_dataset(const std::string& name, const T* data, const Dims& dims) {
  const LibraryLock lock;
  write_dataset(name, data, dims, Storage{});
}

namespace {

// The dataset creation properties for `storage` (chunks, deflate), checked
// against `dims`; `what` names the dataset for errors.
template <class T>
Handle creation_properties(const Dims& dims, const Storage& storage, const std::string& what) {
  Handle create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!create.valid()) throw IoError("cannot write HDF5 dataset " + what + ": no dataset property list");
  if (!storage.chunk.empty()) {
    bool fits = storage.chunk.size() == dims.size();
    for (std::size_t d = 0; fits && d < dims.size(); ++d) fits = storage.chunk[d] >= 1 && storage.chunk[d] <= dims[d];
    if (!fits) throw IoError("cannot write HDF5 dataset " + what + ": chunk shape does not fit the dataset");
    if (!(storage.deflate >= 0 && storage.deflate <= 9))
      throw IoError("cannot write HDF5 dataset " + what + ": deflate level must be 0-9");
    if (H5Pset_chunk(create.get(), static_cast<int>(storage.chunk.size()), storage.chunk.data()) < 0)
      throw IoError("cannot write HDF5 dataset " + what + ": chunking refused");
    if (storage.deflate > 0) {
      if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
        throw IoError("cannot write HDF5 dataset " + what + ": this HDF5 library has no deflate filter");
      if (H5Pset_deflate(create.get(), static_cast<unsigned>(storage.deflate)) < 0)
        throw IoError("cannot write HDF5 dataset " + what + ": deflate refused");
    }
  }
  return create;
}

// Rows [first_row, first_row + rows) of `dataset`'s space, and a memory space
// of that shape; false when they do not lie inside it.
// The box [first, first + count) of a dataset's file space (one entry per
// dimension), and a memory space of its shape; false if it does not fit.
bool select_block(hid_t dataset, const Dims& first, const Dims& count, Handle& file_space, Handle& memory_space) {
  file_space = Handle(H5Dget_space(dataset), H5Sclose);
  if (!file_space.valid()) return false;
  Dims dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(file_space.get())));
  H5Sget_simple_extent_dims(file_space.get(), dims.data(), nullptr);
  if (dims.empty() || first.size() != dims.size() || count.size() != dims.size()) return false;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (first[d] > dims[d] || count[d] > dims[d] - first[d]) return false;
  if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, first.data(), nullptr, count.data(), nullptr) < 0)
    return false;
  memory_space = simple_space(count);
  return memory_space.valid();
}

bool select_rows(hid_t dataset, hsize_t first_row, hsize_t rows, Handle& file_space, Handle& memory_space) {
  const Handle space(H5Dget_space(dataset), H5Sclose);
  if (!space.valid()) return false;
  Dims dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  if (dims.empty()) return false;
  Dims start(dims.size(), 0), count = dims;
  start[0] = first_row;
  count[0] = rows;
  return select_block(dataset, start, count, file_space, memory_space);
}

}  // namespace

template <class T>
void Group::write_dataset(const std::string& name, const T* data, const Dims& dims, const Storage& storage) {
  const LibraryLock lock;
  const Handle space = simple_space(dims);
  const Handle create = creation_properties<T>(dims, storage, where(name));
  Handle dataset(
      H5Dcreate2(handle_.get(), name.c_str(), native_type<T>(), space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
      H5Dclose);
  if (!dataset.valid() || H5Dwrite(dataset.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    throw IoError("cannot write HDF5 dataset " + where(name));
}

template <class T>
void Group::create_dataset(const std::string& name, const Dims& dims, const Storage& storage) {
  const LibraryLock lock;
  const Handle space = simple_space(dims);
  const Handle create = creation_properties<T>(dims, storage, where(name));
  // Rows never written read back as NaN (floating types), not as zeros that
  // look like results.
  const T fill = std::is_floating_point_v<T> ? std::numeric_limits<T>::quiet_NaN() : T{};
  if (H5Pset_fill_value(create.get(), native_type<T>(), &fill) < 0)
    throw IoError("cannot create HDF5 dataset " + where(name) + ": fill value refused");
  Handle dataset(
      H5Dcreate2(handle_.get(), name.c_str(), native_type<T>(), space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
      H5Dclose);
  if (!dataset.valid()) throw IoError("cannot create HDF5 dataset " + where(name));
}

template <class T>
void Group::create_unwritten_dataset(const std::string& name, const Dims& dims) {
  const LibraryLock lock;
  const Handle space = simple_space(dims);
  Handle create(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  // Allocated at creation, so the dataset has its place in the file before
  // the ranks open it with MPI-IO; never filled, so rank 0 writes no bytes of
  // it.
  if (!create.valid() || H5Pset_layout(create.get(), H5D_CONTIGUOUS) < 0 ||
      H5Pset_alloc_time(create.get(), H5D_ALLOC_TIME_EARLY) < 0 ||
      H5Pset_fill_time(create.get(), H5D_FILL_TIME_NEVER) < 0)
    throw IoError("cannot create HDF5 dataset " + where(name) + ": creation properties refused");
  Handle dataset(
      H5Dcreate2(handle_.get(), name.c_str(), native_type<T>(), space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT),
      H5Dclose);
  if (!dataset.valid()) throw IoError("cannot create HDF5 dataset " + where(name));
}

template <class T>
void Group::write_rows(const std::string& name, hsize_t first_row, hsize_t rows, const T* data) {
  const LibraryLock lock;
  if (rows == 0) return;
  const Handle dataset(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  Handle file_space, memory_space;
  if (!dataset.valid() || !select_rows(dataset.get(), first_row, rows, file_space, memory_space) ||
      H5Dwrite(dataset.get(), native_type<T>(), memory_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
    throw IoError("cannot write rows " + std::to_string(first_row) + " to " + std::to_string(first_row + rows) +
                  " of HDF5 dataset " + where(name));
}

template <class T>
std::vector<T> Group::read_rows(const std::string& name, hsize_t first_row, hsize_t rows) const {
  std::vector<T> values;
  read_rows_into(name, first_row, rows, values);
  return values;
}

template <class T>
void Group::read_rows_into(const std::string& name, hsize_t first_row, hsize_t rows, std::vector<T>& values) const {
  const LibraryLock lock;
  const Dims shape = dataset_dims(name);
  const Handle dataset(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  const hsize_t row_length = std::accumulate(shape.begin() + 1, shape.end(), hsize_t{1}, std::multiplies<>());
  values.resize(static_cast<std::size_t>(rows * row_length));
  if (rows == 0) return;
  Handle file_space, memory_space;
  if (!select_rows(dataset.get(), first_row, rows, file_space, memory_space))
    throw IoError("cannot read rows " + std::to_string(first_row) + " to " + std::to_string(first_row + rows) +
                  " of HDF5 dataset " + where(name) + ": it has " + std::to_string(shape[0]) + " rows");
  if (H5Dread(dataset.get(), native_type<T>(), memory_space.get(), file_space.get(), H5P_DEFAULT, values.data()) < 0)
    throw IoError("cannot read HDF5 dataset " + where(name));
}

template <class T>
std::vector<T> Group::read_block(const std::string& name, const Dims& first, const Dims& count) const {
  const LibraryLock lock;
  const Dims shape = dataset_dims(name);
  const Handle dataset(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  const hsize_t points = std::accumulate(count.begin(), count.end(), hsize_t{1}, std::multiplies<>());
  std::vector<T> values(static_cast<std::size_t>(points));
  Handle file_space, memory_space;
  if (!select_block(dataset.get(), first, count, file_space, memory_space)) {
    const auto text = [](const Dims& d) {
      std::string t;
      for (const hsize_t v : d) t += (t.empty() ? "" : " x ") + std::to_string(v);
      return t;
    };
    throw IoError("cannot read the block of " + text(count) + " at " + text(first) + " of HDF5 dataset " + where(name) +
                  ": it is " + text(shape));
  }
  if (points == 0) return values;
  if (H5Dread(dataset.get(), native_type<T>(), memory_space.get(), file_space.get(), H5P_DEFAULT, values.data()) < 0)
    throw IoError("cannot read HDF5 dataset " + where(name));
  return values;
}

void Group::write_strings(const std::string& name, const std::vector<std::string>& values) {
  const LibraryLock lock;
  const Handle type = string_type();
  const Handle space = simple_space(Dims{values.size()});
  std::vector<const char*> pointers;
  for (const auto& value : values) pointers.push_back(value.c_str());
  Handle dataset(
      H5Dcreate2(handle_.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  if (!dataset.valid() || H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0)
    throw IoError("cannot write HDF5 dataset " + where(name));
}

Dims Group::dataset_dims(const std::string& name) const {
  const LibraryLock lock;
  const Handle dataset(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) throw IoError("no HDF5 dataset " + where(name));
  const Handle space(H5Dget_space(dataset.get()), H5Sclose);
  Dims dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

bool Group::holds_single_precision(const std::string& name) const {
  const LibraryLock lock;
  const Handle dataset(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) throw IoError("no HDF5 dataset " + where(name));
  const Handle stored(H5Dget_type(dataset.get()), H5Tclose);
  return H5Tget_class(stored.get()) == H5T_FLOAT && H5Tget_size(stored.get()) == sizeof(float);
}

template <class T>
std::vector<T> Group::read_dataset(const std::string& name, Dims* dims) const {
  const LibraryLock lock;
  const Dims shape = dataset_dims(name);
  const Handle dataset(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  const hsize_t count = std::accumulate(shape.begin(), shape.end(), hsize_t{1}, std::multiplies<>());
  std::vector<T> values(static_cast<std::size_t>(count));
  // HDF5 converts stored types to T; overflowing conversions fail.
  if (H5Dread(dataset.get(), native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw IoError("cannot read HDF5 dataset " + where(name));
  if (dims) *dims = shape;
  return values;
}

std::vector<std::string> Group::read_strings(const std::string& name) const {
  const LibraryLock lock;
  const Dims shape = dataset_dims(name);
  const Handle dataset(H5Dopen2(handle_.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  const Handle type = string_type();
  std::vector<char*> pointers(shape.empty() ? 1 : static_cast<std::size_t>(shape[0]), nullptr);
  if (H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0)
    throw IoError("cannot read HDF5 string dataset " + where(name));
  std::vector<std::string> values;
  for (char* p : pointers) {
    values.emplace_back(p ? p : "");
    H5free_memory(p);
  }
  return values;
}

namespace {

// The file driver result files are written with: POSIX reads and writes like
// HDF5's default (sec2), plus two switches HDF5's own drivers lack.
//
// HDF5 1.10 frees a file whose H5Fclose failed (a write or truncate refused
// when it flushes, e.g. on a full disk) but keeps its ID, and closes that ID
// again at exit: a crash in H5_term_library. So H5Fclose must never fail:
// while closing, the driver records a failure instead of returning it
// (File::close then throws), and a file that is being abandoned discards its
// writes altogether (it is removed afterwards).
#if !H5_VERSION_LE(1, 12, 99)
// 1.13 reordered H5FD_class_t (version and value first, vector and control
// callbacks added): the positional table below would not compile, and must
// not be adapted blindly.
#error \
    "app/hdf5.cpp: the result-file driver is written for the file driver interface of HDF5 1.10 and 1.12 (Debian 12 has 1.10.8); port driver_class to this HDF5's H5FD_class_t"
#endif
struct Driver {
  H5FD_t public_part;  // first: HDF5 hands this pointer to every callback
  int fd = -1;
  haddr_t eoa = 0, eof = 0;
  dev_t device = 0;
  ino_t inode = 0;
  bool discard = false;             // writes and truncation succeed without touching the file
  std::string* failures = nullptr;  // while closing: failures are recorded here and reported as success
};

constexpr haddr_t driver_max_address = (haddr_t{1} << (8 * sizeof(off_t) - 1)) - 1;

Driver* driver_of(H5FD_t* file) { return reinterpret_cast<Driver*>(file); }
const Driver* driver_of(const H5FD_t* file) { return reinterpret_cast<const Driver*>(file); }

// A failure of `what`: returned (-1) normally, recorded while closing.
herr_t driver_failure(Driver* driver, const char* what, int error) {
  if (!driver->failures) {
    errno = error;
    return -1;
  }
  if (driver->failures->empty()) *driver->failures = std::string(what) + ": " + std::strerror(error);
  return 0;
}

H5FD_t* driver_open(const char* name, unsigned flags, hid_t, haddr_t max_address) {
  if (!name || !*name || max_address == 0 || max_address == HADDR_UNDEF || max_address > driver_max_address)
    return nullptr;
  int open_flags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & H5F_ACC_TRUNC) open_flags |= O_TRUNC;
  if (flags & H5F_ACC_CREAT) open_flags |= O_CREAT;
  if (flags & H5F_ACC_EXCL) open_flags |= O_EXCL;
  const int fd = ::open(name, open_flags | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    ::close(fd);
    return nullptr;
  }
  auto* driver = new Driver();
  driver->fd = fd;
  driver->eof = static_cast<haddr_t>(status.st_size);
  driver->device = status.st_dev;
  driver->inode = status.st_ino;
  return &driver->public_part;
}

herr_t driver_close(H5FD_t* file) {
  Driver* driver = driver_of(file);
  const int status = ::close(driver->fd);
  const int error = errno;
  herr_t result = 0;
  if (status != 0 && !driver->discard) result = driver_failure(driver, "close", error);
  delete driver;
  return result;
}

int driver_compare(const H5FD_t* a, const H5FD_t* b) {
  const Driver *x = driver_of(a), *y = driver_of(b);
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
  return 0;
}

herr_t driver_query(const H5FD_t*, unsigned long* flags) {
  if (flags)
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

haddr_t driver_get_eoa(const H5FD_t* file, H5FD_mem_t) { return driver_of(file)->eoa; }

herr_t driver_set_eoa(H5FD_t* file, H5FD_mem_t, haddr_t address) {
  if (address > driver_max_address) return -1;
  driver_of(file)->eoa = address;
  return 0;
}

haddr_t driver_get_eof(const H5FD_t* file, H5FD_mem_t) { return driver_of(file)->eof; }

herr_t driver_get_handle(H5FD_t* file, hid_t, void** handle) {
  if (!handle) return -1;
  *handle = driver_of(file);
  return 0;
}

herr_t driver_read(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t address, size_t size, void* buffer) {
  Driver* driver = driver_of(file);
  if (address == HADDR_UNDEF || address + size > driver->eoa) return -1;
  auto* out = static_cast<char*>(buffer);
  while (size > 0) {
    const ssize_t got = ::pread(driver->fd, out, size, static_cast<off_t>(address));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) {  // past the end of the file: zeros, as sec2 reads them
      std::memset(out, 0, size);
      break;
    }
    out += got;
    address += static_cast<haddr_t>(got);
    size -= static_cast<size_t>(got);
  }
  return 0;
}

herr_t driver_write(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t address, size_t size, const void* buffer) {
  Driver* driver = driver_of(file);
  if (address == HADDR_UNDEF || address + size > driver->eoa) return -1;
  if (driver->discard) return 0;
  const auto* in = static_cast<const char*>(buffer);
  while (size > 0) {
    const ssize_t put = ::pwrite(driver->fd, in, size, static_cast<off_t>(address));
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return driver_failure(driver, "write", errno);
    in += put;
    address += static_cast<haddr_t>(put);
    size -= static_cast<size_t>(put);
    if (address > driver->eof) driver->eof = address;
  }
  return 0;
}

herr_t driver_flush(H5FD_t*, hid_t, hbool_t) { return 0; }  // writes go straight to the file, as with sec2

herr_t driver_truncate(H5FD_t* file, hid_t, hbool_t) {
  Driver* driver = driver_of(file);
  if (driver->eoa == driver->eof) return 0;
  if (!driver->discard && ::ftruncate(driver->fd, static_cast<off_t>(driver->eoa)) != 0)
    return driver_failure(driver, "truncate", errno);
  driver->eof = driver->eoa;
  return 0;
}

herr_t driver_lock(H5FD_t* file, hbool_t read_write) {
  if (::flock(driver_of(file)->fd, (read_write ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 && errno != ENOSYS) return -1;
  return 0;
}

herr_t driver_unlock(H5FD_t* file) {
  if (::flock(driver_of(file)->fd, LOCK_UN) != 0 && errno != ENOSYS) return -1;
  return 0;
}

const H5FD_class_t driver_class = {
    "portasolve",      driver_max_address,
    H5F_CLOSE_WEAK,    nullptr,  // terminate
    nullptr,           nullptr,  // sb_size, sb_encode
    nullptr,           0,        // sb_decode, fapl_size
    nullptr,           nullptr,  // fapl_get, fapl_copy
    nullptr,           0,        // fapl_free, dxpl_size
    nullptr,           nullptr,  // dxpl_copy, dxpl_free
    driver_open,       driver_close,
    driver_compare,    driver_query,
    nullptr,           nullptr,  // get_type_map, alloc
    nullptr,           driver_get_eoa,
    driver_set_eoa,    driver_get_eof,
    driver_get_handle, driver_read,
    driver_write,      driver_flush,
    driver_truncate,   driver_lock,
    driver_unlock,     H5FD_FLMAP_DICHOTOMY,
};

hid_t driver_id() {
  static hid_t id = H5I_INVALID_HID;
  if (id < 0 || H5Iis_valid(id) <= 0) id = H5FDregister(&driver_class);
  return id;
}

}  // namespace

File::File(Handle file, Handle root, std::string filename, void* driver)
    : Group(std::move(root), std::move(filename), "/"), file_handle_(std::move(file)), driver_(driver) {}

File::~File() { finish(/*discard=*/false); }

namespace {

Handle open_root(const Handle& file, const std::string& filename) {
  Handle root(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose);
  if (!root.valid()) throw IoError("cannot open the root group of '" + filename + "'");
  return root;
}

}  // namespace

File File::create(const std::string& filename, bool replace) {
  const LibraryLock lock;
  silence_library_errors();
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // Strong close: closing the file closes everything in it, so once close()
  // returns the bytes on disk are final.
  if (!access.valid() || H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG) < 0 ||
      H5Pset_driver(access.get(), driver_id(), nullptr) < 0)
    throw IoError("cannot set up HDF5 to create '" + filename + "'");
  Handle file(H5Fcreate(filename.c_str(), replace ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT, access.get()), H5Fclose);
  if (!file.valid()) throw IoError("cannot create HDF5 file '" + filename + "'");
  void* driver = nullptr;
  if (H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &driver) < 0 || !driver)
    throw IoError("cannot set up HDF5 to write '" + filename + "'");
  // From here on ~File closes it, should opening the root group fail.
  File created(std::move(file), Handle(), filename, driver);
  created.handle_ = open_root(created.file_handle_, filename);
  return created;
}

File File::create_in_memory(const std::string& name) {
  const LibraryLock lock;
  silence_library_errors();
  constexpr std::size_t growth_bytes = 1 << 20;
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!access.valid() || H5Pset_fapl_core(access.get(), growth_bytes, /*backing_store=*/0) < 0)
    throw IoError("cannot set up HDF5 for the in-memory file '" + name + "'");
  Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
  if (!file.valid()) throw IoError("cannot create the in-memory HDF5 file '" + name + "'");
  File created(std::move(file), Handle(), name, nullptr);
  created.handle_ = open_root(created.file_handle_, name);
  return created;
}

File File::open_read_only(const std::string& filename) {
  const LibraryLock lock;
  silence_library_errors();
  Handle file(H5Fopen(filename.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw IoError("cannot open '" + filename + "' as an HDF5 file");
  Handle root = open_root(file, filename);
  return File(std::move(file), std::move(root), filename, nullptr);
}

void File::flush() {
  const LibraryLock lock;
  if (H5Fflush(file_handle_.get(), H5F_SCOPE_GLOBAL) < 0) throw IoError("cannot flush HDF5 file '" + file_ + "'");
}

std::string File::finish(bool discard) noexcept {
  const LibraryLock lock;
  if (!file_handle_.valid()) return {};
  handle_.reset();
  std::string failure;
  if (driver_) {
    // From here on H5Fclose cannot fail for a write (see Driver).
    auto* driver = static_cast<Driver*>(driver_);
    driver->discard = discard;
    driver->failures = &failure;
    driver_ = nullptr;
  }
  if (H5Fclose(file_handle_.release()) < 0 && failure.empty()) failure = "H5Fclose failed";
  return failure;
}

void File::close() {
  const std::string failure = finish(/*discard=*/false);
  if (!failure.empty()) throw IoError("cannot write HDF5 file '" + file_ + "': " + failure);
}

void File::abandon() noexcept { finish(/*discard=*/true); }

#define PORTASOLVE_H5_INSTANTIATE(T)                                             \
  template void Group::write_dataset(const std::string&, const T*, const Dims&); \
  template std::vector<T> Group::read_dataset(const std::string&, Dims*) const;
PORTASOLVE_H5_INSTANTIATE(float)
PORTASOLVE_H5_INSTANTIATE(double)
PORTASOLVE_H5_INSTANTIATE(std::uint8_t)
PORTASOLVE_H5_INSTANTIATE(std::uint16_t)
PORTASOLVE_H5_INSTANTIATE(std::int32_t)
PORTASOLVE_H5_INSTANTIATE(std::int64_t)
#undef PORTASOLVE_H5_INSTANTIATE
template void Group::write_dataset(const std::string&, const float*, const Dims&, const Storage&);
template void Group::write_dataset(const std::string&, const double*, const Dims&, const Storage&);
template void Group::create_unwritten_dataset<float>(const std::string&, const Dims&);
template void Group::create_unwritten_dataset<double>(const std::string&, const Dims&);
template void Group::create_unwritten_dataset<std::uint8_t>(const std::string&, const Dims&);
template void Group::create_unwritten_dataset<std::uint16_t>(const std::string&, const Dims&);
template void Group::create_unwritten_dataset<std::int32_t>(const std::string&, const Dims&);
template void Group::create_dataset<float>(const std::string&, const Dims&, const Storage&);
template void Group::create_dataset<double>(const std::string&, const Dims&, const Storage&);
template void Group::create_dataset<std::int64_t>(const std::string&, const Dims&, const Storage&);
template void Group::write_rows(const std::string&, hsize_t, hsize_t, const float*);
template void Group::write_rows(const std::string&, hsize_t, hsize_t, const double*);
template void Group::write_rows(const std::string&, hsize_t, hsize_t, const std::int64_t*);
template std::vector<double> Group::read_rows(const std::string&, hsize_t, hsize_t) const;
template std::vector<double> Group::read_block(const std::string&, const Dims&, const Dims&) const;
template std::vector<std::int64_t> Group::read_rows(const std::string&, hsize_t, hsize_t) const;
template void Group::read_rows_into(const std::string&, hsize_t, hsize_t, std::vector<double>&) const;
template void Group::read_rows_into(const std::string&, hsize_t, hsize_t, std::vector<float>&) const;
template void Group::read_rows_into(const std::string&, hsize_t, hsize_t, std::vector<std::int64_t>&) const;

}  // namespace portasolve::h5

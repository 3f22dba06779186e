#include "solvers/stream/stream.hpp"

#include <stdexcept>

#include "core/names.hpp"

namespace portasolve::stream {

const std::vector<std::string>& operation_names() {
  static const std::vector<std::string> names{"copy", "scale", "add", "triad", "deep_copy"};
  return names;
}

Operation operation_from_name(const std::string& name) {
  return enum_from_name<Operation>(operation_names(), name, "STREAM operation");
}

std::size_t bytes_moved(Operation operation, std::size_t n, std::size_t element_bytes) {
  const bool two_arrays =
      operation == Operation::copy || operation == Operation::scale || operation == Operation::deep_copy;
  const std::size_t arrays_touched = two_arrays ? 2 : 3;
  return arrays_touched * n * element_bytes;
}

}  // namespace portasolve::stream

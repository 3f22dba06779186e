#include "src/session.hpp"

#include <memory>
#include <set>
#include <stdexcept>

#include "core/kokkos_session.hpp"

namespace portasolve::python {

namespace {
std::unique_ptr<KokkosSession> session;
bool finalized = false;
std::set<HoldsDeviceMemory*>& holders() {
  static std::set<HoldsDeviceMemory*> live;
  return live;
}
}  // namespace

HoldsDeviceMemory::HoldsDeviceMemory() { holders().insert(this); }
HoldsDeviceMemory::~HoldsDeviceMemory() { holders().erase(this); }

void ensure_kokkos() {
  if (session) return;
  // Kokkos cannot be initialised again in the same process.
  if (finalized) throw std::runtime_error("portasolve: Kokkos was already finalized in this process");
  session = std::make_unique<KokkosSession>();
}

void finalize_kokkos() {
  if (!session) return;
  for (HoldsDeviceMemory* holder : holders()) holder->release();
  session.reset();
  finalized = true;
}

bool kokkos_running() { return static_cast<bool>(session); }

}  // namespace portasolve::python

// The registry of workspace caches (workspace_cache.hpp): what
// release_workspaces() empties, and the finalize hook that runs it.
#include "core/workspace_cache.hpp"

#include <Kokkos_Core.hpp>
#include <mutex>
#include <vector>

namespace portasolve {

namespace {
std::mutex cache_registry_mutex;
std::vector<void (*)()>& cache_clearers() {
  static std::vector<void (*)()> clearers;
  return clearers;
}
bool release_hook_pushed = false;
}  // namespace

void register_workspace_cache(void (*clear)()) {
  const std::lock_guard<std::mutex> lock(cache_registry_mutex);
  cache_clearers().push_back(clear);
}

void release_workspaces_at_finalize() {
  const std::lock_guard<std::mutex> lock(cache_registry_mutex);
  if (release_hook_pushed) return;
  // Kokkos runs (and forgets) its hooks at every finalize: one per session.
  Kokkos::push_finalize_hook([] {
    release_workspaces();
    const std::lock_guard<std::mutex> inner(cache_registry_mutex);
    release_hook_pushed = false;
  });
  release_hook_pushed = true;
}

void release_workspaces() {
  std::vector<void (*)()> clearers;
  {
    const std::lock_guard<std::mutex> lock(cache_registry_mutex);
    clearers = cache_clearers();
  }
  for (const auto clear : clearers) clear();
}

}  // namespace portasolve

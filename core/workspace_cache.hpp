#pragma once
// The buffers, FFT plans and tables a solve builds for its shape, kept for
// the next solve of the same shape (Poisson's spectral and multigrid
// workspaces, the Lomb-Scargle NUFFT's correction table). Repeated solves
// (time steps, benchmark repeats, calls from Python) then skip cuFFT
// planning, device allocations and tables, which cost more than a small
// problem's whole solve.
//
// One workspace per type is kept, that of the last shape solved. A solve
// takes it out of the cache (so solves from several host threads never share
// one) and puts it back when done, replacing whatever another solve left.
// The cache is emptied when Kokkos finalizes (no View may outlive Kokkos),
// or earlier by release_workspaces(). A workspace holds no
// execution space instance: each solve runs it on its own (solve(exec, ...))
// and gives it back after a host reduction on that instance, so the next
// solve, on any instance, finds none of its work still running.
#include <memory>
#include <mutex>
#include <utility>

namespace portasolve {

// Empties every workspace cache now (also run when Kokkos finalizes).
void release_workspaces();

// Adds a cache's clear() to those release_workspaces() runs.
void register_workspace_cache(void (*clear)());
// Makes the next Kokkos::finalize run release_workspaces() first.
void release_workspaces_at_finalize();

template <class Workspace>
class WorkspaceCache {
 public:
  using Key = typename Workspace::Key;

  // A workspace for `key`, taken from the cache or built by make().
  template <class Make>
  static std::unique_ptr<Workspace> take(const Key& key, Make&& make) {
    release_workspaces_at_finalize();
    {
      Slot& s = slot();
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.workspace && s.key == key) return std::move(s.workspace);
    }
    return std::make_unique<Workspace>(make());
  }

  static void give_back(const Key& key, std::unique_ptr<Workspace> workspace) {
    Slot& s = slot();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.key = key;
    s.workspace = std::move(workspace);
  }

  static void clear() {
    Slot& s = slot();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.workspace.reset();
  }

 private:
  struct Slot {
    std::mutex mutex;
    Key key{};
    std::unique_ptr<Workspace> workspace;
  };
  static Slot& slot() {
    static Slot s;
    static const bool registered = [] {
      register_workspace_cache(&WorkspaceCache::clear);
      return true;
    }();
    (void)registered;
    return s;
  }
};

// Takes a workspace for the duration of a solve and returns it afterwards,
// also when the solve throws (its buffers are still sound).
template <class Workspace>
class BorrowedWorkspace {
 public:
  template <class Make>
  BorrowedWorkspace(const typename Workspace::Key& key, Make&& make)
      : key_(key), workspace_(WorkspaceCache<Workspace>::take(key, std::forward<Make>(make))) {}
  ~BorrowedWorkspace() { WorkspaceCache<Workspace>::give_back(key_, std::move(workspace_)); }
  BorrowedWorkspace(const BorrowedWorkspace&) = delete;
  BorrowedWorkspace& operator=(const BorrowedWorkspace&) = delete;
  Workspace& operator*() const { return *workspace_; }
  Workspace* operator->() const { return workspace_.get(); }

 private:
  typename Workspace::Key key_;
  std::unique_ptr<Workspace> workspace_;
};

}  // namespace portasolve

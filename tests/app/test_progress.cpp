#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <sstream>

#include "app/progress.hpp"
#include "core/interrupt.hpp"

namespace {

TEST(Progress, LineShowsStepsResidualElapsedAndEta) {
  const portasolve::Progress progress("poisson/jacobi", 150000, "sweep", nullptr, 1.0);
  EXPECT_EQ(progress.line(30000, 1.25e-3, 2.0),
            "poisson/jacobi: sweep 30000/150000 (20%), residual 1.250e-03, elapsed 2.0 s, ETA 8.0 s");
  EXPECT_EQ(progress.line(150000, std::nullopt, 125.0), "poisson/jacobi: sweep 150000/150000 (100%), elapsed 2m05s");
  EXPECT_EQ(progress.line(1, std::nullopt, 7300.0).substr(0, 55),
            "poisson/jacobi: sweep 1/150000 (0%), elapsed 2h01m, ETA");
}

TEST(Progress, PrintsAtMostOncePerIntervalAndClosesWithAFinalLine) {
  std::ostringstream out;
  portasolve::Progress progress("stream", 10, "repeat", &out, 3600.0);
  for (int i = 1; i <= 10; ++i) progress.update(i);
  EXPECT_EQ(out.str(), "");  // interval never passed
  progress.update(5, std::nullopt, /*force=*/true);
  progress.update(10);
  progress.finish();
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
  EXPECT_NE(text.find("stream: repeat 5/10 (50%)"), std::string::npos) << text;
  EXPECT_NE(text.find("stream: repeat 10/10 (100%)"), std::string::npos) << text;
}

// The last step already printed: finish() does not print it a second time.
TEST(Progress, FinishDoesNotRepeatTheLastLine) {
  std::ostringstream out;
  portasolve::Progress progress("stream", 10, "repeat", &out, 0.0);
  for (int i = 1; i <= 10; ++i) progress.update(i);
  progress.finish();
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 10) << text;
  EXPECT_EQ(text.find("repeat 10/10"), text.rfind("repeat 10/10")) << text;
}

// Nothing printed: no closing line either (short runs stay silent).
TEST(Progress, FinishIsSilentWhenNothingWasPrinted) {
  std::ostringstream out;
  portasolve::Progress progress("stream", 10, "repeat", &out, 3600.0);
  for (int i = 1; i <= 10; ++i) progress.update(i);
  progress.finish();
  EXPECT_EQ(out.str(), "");
}

// A run that times a baseline first names it, then the solver being measured.
TEST(Progress, TaskCanBeRenamedBetweenPhases) {
  std::ostringstream out;
  portasolve::Progress progress("lombscargle/direct (baseline)", 4, "launch", &out, 0.0);
  progress.update(1);
  progress.update(2);
  progress.set_task("lombscargle/nufft");
  progress.update(3);
  progress.update(4);
  progress.finish();
  const std::string text = out.str();
  EXPECT_NE(text.find("lombscargle/direct (baseline): launch 2/4 (50%)"), std::string::npos) << text;
  EXPECT_NE(text.find("lombscargle/nufft: launch 3/4 (75%)"), std::string::npos) << text;
  EXPECT_EQ(text.find("lombscargle/nufft: launch 1/4"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4) << text;
}

TEST(Progress, EveryUpdatePrintsWithZeroInterval) {
  std::ostringstream out;
  portasolve::Progress progress("t", 3, "step", &out, 0.0);
  progress.update(1, 0.5);
  progress.update(2, 0.25);
  const std::string text = out.str();
  EXPECT_NE(text.find("t: step 1/3 (33%), residual 5.000e-01"), std::string::npos) << text;
  EXPECT_NE(text.find("t: step 2/3 (67%), residual 2.500e-01"), std::string::npos) << text;
}

TEST(Interrupt, SignalBecomesAnExceptionWithExitCode130) {
  portasolve::InterruptHandler handler;
  EXPECT_FALSE(portasolve::interrupt_requested());
  EXPECT_NO_THROW(portasolve::throw_if_interrupted());
  std::raise(SIGINT);
  EXPECT_TRUE(portasolve::interrupt_requested());
  try {
    portasolve::throw_if_interrupted();
    FAIL() << "no exception";
  } catch (const portasolve::Interrupted& error) {
    EXPECT_EQ(error.exit_code(), 130);
  }
}

// A hangup (the terminal or SSH session went away) stops a run like Ctrl-C:
// before, it killed the process on the spot and left a partial file.
TEST(Interrupt, HangupIsAStopRequestLikeCtrlC) {
  for (const int signal : {SIGHUP, SIGTERM}) {
    portasolve::InterruptHandler handler;
    std::raise(signal);
    EXPECT_TRUE(portasolve::interrupt_requested()) << signal;
    EXPECT_THROW(portasolve::throw_if_interrupted(), portasolve::Interrupted) << signal;
  }
}

// Under nohup a hangup stays ignored: the run goes on.
TEST(Interrupt, IgnoredHangupStaysIgnored) {
  const auto previous = std::signal(SIGHUP, SIG_IGN);
  {
    portasolve::InterruptHandler handler;
    std::raise(SIGHUP);
    EXPECT_FALSE(portasolve::interrupt_requested());
  }
  EXPECT_EQ(std::signal(SIGHUP, previous), SIG_IGN);  // and is ignored again afterwards
}

}  // namespace

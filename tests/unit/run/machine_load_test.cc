#include "engine/run/machine_load.h"

#include <gtest/gtest.h>

#include "engine/report/machine_load_line.h"

namespace pe::run {

using model::RoundLoad;
using model::RunResult;
namespace {

TEST(MachineLoad, ParsesTheAggregateCpuLineOfProcStat) {
  const auto ticks = ParseProcStat("cpu  100 5 50 800 20 3 2 40 0 0\ncpu0 50 2 25 400 10 1 1 20 0 0\nintr 12345\n");
  ASSERT_TRUE(ticks.has_value());
  EXPECT_EQ(ticks->busy, 100u + 5 + 50 + 3 + 2);
  EXPECT_EQ(ticks->idle, 800u + 20);
  EXPECT_EQ(ticks->steal, 40u);
  EXPECT_FALSE(ParseProcStat("intr 1\n").has_value());
}

TEST(MachineLoad, SharesOfOthersAndStealOverTheInterval) {
  CpuTicks before{1000, 5000, 0};
  // 2 cores for 1 s at 100 ticks/s: 200 ticks, 120 busy, 60 idle, 20 stolen.
  CpuTicks after{1120, 5060, 20};
  const RoundLoad load = LoadBetween(before, after, /*own_cpu_s=*/0.4, /*ticks_per_s=*/100);
  ASSERT_TRUE(load.others_share && load.steal_share);
  EXPECT_DOUBLE_EQ(*load.steal_share, 0.1);
  EXPECT_DOUBLE_EQ(*load.others_share, (1.2 - 0.4) / 2.0);
  // Our own children used all of it: nobody else did (never below zero).
  EXPECT_DOUBLE_EQ(*LoadBetween(before, after, 5.0, 100).others_share, 0.0);
  EXPECT_FALSE(LoadBetween(before, before, 0, 100).others_share.has_value());
}

TEST(MachineLoad, LoadAverageAndClock) {
  EXPECT_DOUBLE_EQ(*ParseLoadAvg("7.52 9.10 8.00 3/412 12345\n"), 7.52);
  EXPECT_FALSE(ParseLoadAvg("").has_value());
  EXPECT_DOUBLE_EQ(*ParseCpuMhz("processor\t: 0\ncpu MHz\t\t: 2000.000\nprocessor\t: 1\ncpu MHz\t\t: 3000.000\n"),
                   2500.0);
  EXPECT_FALSE(ParseCpuMhz("processor\t: 0\nBogoMIPS\t: 50.00\n").has_value());
}

TEST(MachineLoad, AProbeRecordsTheRoundOnThisMachine) {
  LoadProbe probe;
  probe.Begin();
  const RoundLoad load = probe.End(3, 0);
  EXPECT_EQ(load.round, 3);
  ASSERT_TRUE(load.load_1m.has_value());
  EXPECT_GE(*load.load_1m, 0);
}

RunResult WithLoad(std::vector<RoundLoad> load) {
  RunResult result;
  result.machine.cores = 2;
  result.load = std::move(load);
  return result;
}

TEST(BusyMachineLine, SaysSoWhenLoadExceedsTheCoresOrStealIsHigh) {
  EXPECT_EQ(report::BusyMachineLine(WithLoad({})), "");
  EXPECT_EQ(report::BusyMachineLine(WithLoad({{0, 1.5, 0.2, 0.0, 2400}, {1, 2.0, 0.3, 0.01, {}}})), "");
  EXPECT_EQ(report::BusyMachineLine(WithLoad({{0, 1.5, 0.2, 0.0, {}}, {1, 11.2, 0.64, 0.0, {}}})),
            "note: the machine was busy in 1 of 2 rounds (load average up to 11.2 on 2 cores, other processes up "
            "to 64% of CPU time, steal up to 0.0%): timings may be slower and noisier than on an idle machine; "
            "`perfengine explain` shows each round");
  EXPECT_NE(report::BusyMachineLine(WithLoad({{0, 0.5, 0.0, 0.05, {}}})), "");
}

// A count printed with its noun agrees with it: "1 of 1 round ... on 1 core", not "1 cores".
TEST(BusyMachineLine, OneRoundOnOneCoreIsSingular) {
  RunResult result = WithLoad({{0, 3.5, 0.5, 0.0, {}}});
  result.machine.cores = 1;
  EXPECT_EQ(report::BusyMachineLine(result),
            "note: the machine was busy in 1 of 1 round (load average up to 3.5 on 1 core, other processes up to 50% "
            "of CPU time, steal up to 0.0%): timings may be slower and noisier than on an idle machine; "
            "`perfengine explain` shows each round");
}

}  // namespace
}  // namespace pe::run

#include "measure/comm/comm_plan.h"

#include <map>

#include <gtest/gtest.h>

#include "measure/comm/rank_environment.h"
#include "model/error.h"

namespace lcab::measure {
namespace {

TEST(CommPlan, ByteSizesTakeBinarySuffixes) {
  EXPECT_EQ(parse_byte_size("8"), 8);
  EXPECT_EQ(parse_byte_size("64K"), 64 << 10);
  EXPECT_EQ(parse_byte_size("1M"), 1 << 20);
  EXPECT_EQ(parse_byte_size("2G"), int64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("16MB"), 16 << 20);
  EXPECT_THROW(parse_byte_size("1T"), Error);
  EXPECT_THROW(parse_byte_size("-4"), Error);
  EXPECT_THROW(parse_byte_size(""), Error);
}

TEST(CommPlan, SizesStepLikeNcclTests) {
  EXPECT_EQ(message_sizes(1 << 20, 16 << 20, 2), (std::vector<int64_t>{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}));
  EXPECT_EQ(message_sizes(1024, 4096, 0, 1024), (std::vector<int64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(message_sizes(1000, 1000, 2), (std::vector<int64_t>{1000}));
  EXPECT_THROW(message_sizes(2048, 1024, 2), Error);
  EXPECT_THROW(message_sizes(1024, 2048, 1), Error);
  EXPECT_THROW(message_sizes(0, 2048, 2), Error);
}

TEST(CommPlan, GroupLayoutsSplitTheWorldAsCpMethodsDo) {
  const GroupLayout contiguous = GroupLayout::parse("contiguous:4");
  const GroupLayout strided = GroupLayout::parse("strided:4");
  const GroupLayout world = GroupLayout::parse("world");
  EXPECT_EQ(contiguous.to_string(), "contiguous:4");
  EXPECT_EQ(strided.to_string(), "strided:4");
  EXPECT_EQ(world.to_string(), "world");
  // 8 ranks: contiguous {0..3} {4..7}; strided {0,2,4,6} {1,3,5,7}.
  std::map<int, std::vector<int>> c_groups, s_groups;
  for (int r = 0; r < 8; ++r) {
    c_groups[contiguous.color(r, 8)].push_back(r);
    s_groups[strided.color(r, 8)].push_back(r);
    EXPECT_EQ(world.color(r, 8), 0);
    EXPECT_EQ(world.rank_in_group(r, 8), r);
  }
  EXPECT_EQ(c_groups[0], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(c_groups[1], (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(s_groups[0], (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(s_groups[1], (std::vector<int>{1, 3, 5, 7}));
  EXPECT_EQ(strided.rank_in_group(6, 8), 3);
  EXPECT_EQ(contiguous.rank_in_group(6, 8), 2);
  EXPECT_EQ(contiguous.size(8), 4);
  EXPECT_EQ(world.size(8), 8);
  EXPECT_THROW(contiguous.validate(6), Error);
  EXPECT_NO_THROW(contiguous.validate(8));
  EXPECT_THROW(GroupLayout::parse("ring:2"), Error);
  EXPECT_THROW(GroupLayout::parse("contiguous"), Error);
  EXPECT_THROW(GroupLayout::parse("strided:0"), Error);
}

EnvLookup lookup_in(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(RankEnvironment, ReadsEachLauncher) {
  EXPECT_EQ(detect_rank_environment(lookup_in({})).launcher, "none");
  RankEnvironment mpi = detect_rank_environment(lookup_in(
      {{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}));
  EXPECT_EQ(mpi.launcher, "mpirun");
  EXPECT_EQ(mpi.rank, 3);
  EXPECT_EQ(mpi.world_size, 8);
  EXPECT_EQ(mpi.local_rank, 1);
  RankEnvironment slurm = detect_rank_environment(lookup_in(
      {{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "5"}, {"SLURM_JOB_ID", "777"}}));
  EXPECT_EQ(slurm.launcher, "srun");
  EXPECT_EQ(slurm.job_id, "777");
  RankEnvironment torch = detect_rank_environment(
      lookup_in({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"TORCHELASTIC_RUN_ID", "abc"}}));
  EXPECT_EQ(torch.launcher, "torchrun");
  EXPECT_EQ(torch.rank, 1);
  EXPECT_EQ(torch.job_id, "abc");
}

TEST(RankEnvironment, BadValuesAreErrors) {
  EXPECT_THROW(detect_rank_environment(lookup_in({{"RANK", "2"}, {"WORLD_SIZE", "2"}})), Error);
  EXPECT_THROW(detect_rank_environment(lookup_in({{"RANK", "x"}, {"WORLD_SIZE", "2"}})), Error);
  EXPECT_THROW(detect_rank_environment(lookup_in({{"RANK", "0"}})), Error);
}

}  // namespace
}  // namespace lcab::measure

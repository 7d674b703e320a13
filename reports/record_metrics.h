// The numbers reports draw from a record, computed one way for measured and predicted records alike.
#pragma once

#include <optional>
#include <string>

#include "model/record.h"

namespace lcab::report {

/// Median time in ms of an ok record with a positive time; nullopt otherwise.
std::optional<double> median_time_ms(const Record& record);

/// Achieved TFLOP/s of the whole call (kernel) or of the whole CP group (cp): flops / median time when both
/// are present, else the record's tflops field.
std::optional<double> total_tflops(const Record& record);

/// TFLOP/s per GPU of a cp record: total_tflops / key.gpus (kernel records: total_tflops).
std::optional<double> per_gpu_tflops(const Record& record);

/// Relative error of a prediction, (predicted - measured) / measured, on median times; nullopt when either
/// time is missing.
std::optional<double> relative_error(const Record& measured, const Record& predicted);

/// What a record measures, in words, for table rows and legends: the implementation for kernels, the method
/// and its degrees for cp ("usp U2xR4 ring_intra"), the op and group for comm.
std::string subject_of(const Record& record);

/// A join key over kind and key: a measured and a predicted record of the same case have equal ids.
std::string case_id(const Record& record);

}  // namespace lcab::report

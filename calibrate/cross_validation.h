// Cross-validation: for every fold, calibrate on the records it does not hold out and predict the ones it does.
// A held-out point is predicted only when its own fit group was fitted from the training records; otherwise it is
// reported as not predicted, with the reason (a fold can remove all data for a parameter).
#pragma once

#include <vector>

#include "calibrate/accuracy.h"
#include "calibrate/calibration.h"
#include "calibrate/holdout.h"

namespace lcab::calibrate {

/// Records: the usable measurements (every kind). Returns one point per held-out record, in input order.
std::vector<AccuracyPoint> cross_validate(const std::vector<Record>& records, const HoldoutSpec& holdout,
                                          const perf::HardwareProfile& base, const CalibrationOptions& options,
                                          const RecordPredictor& predictor);

}  // namespace lcab::calibrate

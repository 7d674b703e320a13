#include "calibrate/cross_validation.h"

#include "model/error.h"

namespace lcab::calibrate {

std::vector<AccuracyPoint> cross_validate(const std::vector<Record>& records, const HoldoutSpec& holdout,
                                          const perf::HardwareProfile& base, const CalibrationOptions& options,
                                          const RecordPredictor& predictor) {
  const FoldAssignment folds = assign_folds(records, holdout);
  std::vector<AccuracyPoint> points(records.size());
  std::vector<bool> evaluated(records.size(), false);
  for (size_t fold = 0; fold < folds.fold_names.size(); ++fold) {
    std::vector<Record> training;
    for (size_t n = 0; n < records.size(); ++n)
      if (folds.fold_of_record[n] != static_cast<int>(fold)) training.push_back(records[n]);
    const CalibrationResult calibration = calibrate(training, base, options, predictor);
    for (size_t n = 0; n < records.size(); ++n) {
      if (folds.fold_of_record[n] != static_cast<int>(fold)) continue;
      AccuracyPoint& point = points[n];
      point.measured = records[n];
      point.fold = folds.fold_names[fold];
      evaluated[n] = true;
      const std::string group = fit_group(records[n], calibration.profile);
      if (!calibration.fitted(group)) {
        const std::string why = calibration.failure(group);
        point.failure = why.empty() ? "no training records for " + group : "not fitted: " + why;
        continue;
      }
      try {
        point.predicted_ms = predictor.predict_ms(calibration.profile, records[n]);
      } catch (const Error& e) {
        point.failure = e.what();
      }
    }
  }
  std::vector<AccuracyPoint> held_out;
  for (size_t n = 0; n < records.size(); ++n)
    if (evaluated[n]) held_out.push_back(std::move(points[n]));
  return held_out;
}

}  // namespace lcab::calibrate

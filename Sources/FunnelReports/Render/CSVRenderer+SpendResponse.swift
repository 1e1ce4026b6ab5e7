import Foundation

extension CSVRenderer {
    /// spend_response.csv (one row per paid network) and cpi_inflated_days.csv (one row per
    /// inflated day); docs/reports.md lists the columns.
    static func spendResponseTables(_ report: Report) -> [(name: String, header: [String], rows: [[Cell]])] {
        [
            ("spend_response.csv", ["network", "status", "days", "exponent_b", "exponent_b_low", "exponent_b_high",
                                    "scale_a", "r_squared", "current_spend", "average_cpi", "marginal_cpi", "ltv_d180",
                                    "headroom_spend", "max_spend", "saturated", "inflated_days", "advice", "curve_form", "saturating_capacity", "saturating_half_spend"],
             report.spendResponse.networks.map {
                 [.text($0.network), .text($0.status), .integer($0.days), .number($0.exponentB), .number($0.exponentBLow),
                  .number($0.exponentBHigh), .number($0.scaleA), .number($0.rSquared), .money($0.currentSpend),
                  .money($0.averageCpi), .money($0.marginalCpi), .money($0.ltvD180), .money($0.headroomSpend),
                  .money($0.maxSpend), $0.saturated.map(Cell.boolean) ?? .text(""), .integer($0.inflatedDays),
                  .text($0.advice), .text($0.curveForm ?? ""), .number($0.saturatingCapacity),
                  .number($0.saturatingHalfSpend)]
             }),
            ("spend_response_segments.csv", ["network", "campaign", "country", "status", "days", "curve_form", "exponent_b",
                                             "exponent_b_low", "exponent_b_high", "scale_a", "saturating_capacity",
                                             "saturating_half_spend", "current_spend", "average_cpi", "marginal_cpi",
                                             "ltv_d180", "headroom_spend", "saturated", "advice"],
             report.spendResponse.segments.map {
                 [.text($0.network), .text($0.campaign), .text($0.country), .text($0.status), .integer($0.days),
                  .text($0.curveForm ?? ""), .number($0.exponentB), .number($0.exponentBLow), .number($0.exponentBHigh),
                  .number($0.scaleA), .number($0.saturatingCapacity), .number($0.saturatingHalfSpend),
                  .money($0.currentSpend), .money($0.averageCpi), .money($0.marginalCpi), .money($0.ltvD180),
                  .money($0.headroomSpend), $0.saturated.map(Cell.boolean) ?? .text(""), .text($0.advice)]
             }),
            ("cpi_by_hour.csv", ["network", "hour", "days", "spend", "paid_installs", "cpi", "cpi_index"],
             report.spendResponse.cpiByHour.map {
                 [.text($0.network), .integer($0.hour), .integer($0.days), .money($0.spend), .integer($0.paidInstalls),
                  .money($0.cpi), .number($0.cpiIndex)]
             }),
            ("cpi_inflated_days.csv", ["network", "date", "spend", "paid_installs", "cpi", "expected_cpi", "robust_z",
                                       "excess_cost"],
             report.spendResponse.inflatedDays.map {
                 [.text($0.network), .text($0.date), .money($0.spend), .integer($0.paidInstalls), .money($0.cpi),
                  .money($0.expectedCpi), .number($0.robustZ), .money($0.excessCost)]
             }),
        ]
    }
}

import Foundation

/// One setting of the configuration in force, as the reports and `funnel compute` show it: the
/// key as `funnel.toml` spells it (`time_zone`, `regular_user.opens`) and its value as text.
public struct ConfigurationSetting: Sendable, Equatable, Codable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

extension FunnelConfiguration {
    /// Every setting, in the order of docs/configuration.md; user-defined funnels and retentions by
    /// name.
    public var settings: [ConfigurationSetting] {
        func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(format: "%.1f", value) : "\(value)"
        }
        var pairs: [(String, String)] = [
            ("time_zone", timeZone), ("day_rule", dayRule.rawValue), ("revenue_share", number(revenueShare)),
            ("max_day", "\(maxDay)"), ("funnel.onboarding_step", onboardingStep), ("funnel.window_days", "\(windowDays)"),
            ("funnel.purchase_window_days", "\(purchaseWindowDays)"), ("regular_user.opens", "\(regularOpens)"),
            ("regular_user.days", "\(regularDays)"),
            ("retention.brackets", retentionBrackets.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")),
            ("ltv.horizons", ltvHorizons.map(String.init).joined(separator: ",")),
            ("kfactor.window_days", "\(kFactorWindowDays)"), ("verdict.double_down_ratio", number(doubleDownRatio)),
            ("verdict.cut_ratio", number(cutRatio)), ("verdict.min_installs", "\(minInstalls)"),
            ("verdict.min_payers", "\(minPayers)"),
        ]
        if !funnels.isEmpty { pairs.append(("funnels", funnels.map(\.name).joined(separator: ","))) }
        if !retentions.isEmpty { pairs.append(("retention", retentions.map(\.name).joined(separator: ","))) }
        return pairs.map { ConfigurationSetting(key: $0.0, value: $0.1) }
    }
}

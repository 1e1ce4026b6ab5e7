import Foundation

/// Expected revenue of a customer over a horizon: BG/NBD's expected purchases times Gamma-Gamma's
/// expected spend per purchase (the two assumed independent, as in the papers). To be summed
/// per cohort.
public struct CustomerValueModel: Sendable, Equatable {
    public let purchases: BGNBD
    public let spend: GammaGamma

    public init(purchases: BGNBD, spend: GammaGamma) {
        self.purchases = purchases
        self.spend = spend
    }

    /// Expected revenue from the repeat purchases in the next `horizon` periods of a customer with
    /// history (x, tx, T) and mean repeat spend `meanSpend` (ignored when x = 0).
    ///
    /// Undiscounted by default. With `discountRate` d > 0 (per period) each period's expected
    /// purchases are discounted by (1 + d)^−k at the end of period k, k = 1, 2, … (the last one
    /// possibly partial), as `lifetimes`' customer_lifetime_value does.
    public func expectedRevenue(horizon: Double, x: Int, tx: Double, T: Double, meanSpend: Double,
                                discountRate: Double = 0) -> Double {
        guard horizon > 0 else { return 0 }
        let perPurchase = spend.conditionalExpectedSpend(x: x, meanSpend: meanSpend)
        guard discountRate != 0 else {
            return perPurchase * purchases.expectedPurchases(t: horizon, x: x, tx: tx, T: T)
        }
        var total = 0.0
        var previous = 0.0
        var end = 0.0
        while end < horizon {
            end = min(end + 1, horizon)
            let cumulative = purchases.expectedPurchases(t: end, x: x, tx: tx, T: T)
            total += (cumulative - previous) / pow(1 + discountRate, end.rounded(.up))
            previous = cumulative
        }
        return perPurchase * total
    }
}

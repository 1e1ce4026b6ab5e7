import Foundation

/// Closed-form expectations of the planted model (what an infinitely large run would show).
enum PlantedExpectations {
    /// Share of a source's installs that become regular users: at least 3 opens on days 1..7,
    /// with the engagement mixture and the onboarding drop-out multiplier, by dynamic programming
    /// over the number of opens (0, 1, 2, 3+).
    static func regularShare(_ profile: SourceProfile) -> Double {
        let q = Onboarding.plannedCompletion
        let completer = DataGenerator.completerMultiplier
        var total = 0.0
        for (weight, factor) in [(q, completer), (1 - q, PlantedModel.dropoutMultiplier)] {
            for engagement in PlantedModel.engagementLevels {
                let multiplier = engagement * factor / PlantedModel.openRate
                var dist = [1.0, 0, 0, 0]
                for day in 1...PlantedModel.regularDays {
                    let p = min(1, profile.retention(day: day) * multiplier)
                    let lambda = PlantedModel.extraOpensPerActiveDay
                    // Opens on an active day: 1 + Poisson(lambda); capped at 3.
                    let k = [0.0, exp(-lambda), lambda * exp(-lambda), 1 - exp(-lambda) * (1 + lambda)]
                    var next = [0.0, 0, 0, 0]
                    for have in 0..<4 {
                        next[have] += dist[have] * (1 - p)
                        for add in 1..<4 { next[min(3, have + add)] += dist[have] * p * k[add] }
                    }
                    dist = next
                }
                total += weight / Double(PlantedModel.engagementLevels.count) * dist[3]
            }
        }
        return total * PlantedModel.openRate
    }

    /// Expected revenue per install through day N (calendar days after the install day) under `shape`.
    static func ltv(_ profile: SourceProfile, day: Int, shape: LTVShape = .saturating) -> Double {
        let perPurchase = profile.revenuePerPayerUSD / (1 + profile.extraPurchasesPerPayer)
        let purchases = shape.expectedPurchases(before: Double(day + 1), extra: profile.extraPurchasesPerPayer)
        return profile.payerRate * perPurchase * purchases
    }

    /// Expected share of installs with a purchase on days 0..7.
    static func payerRateD7(_ profile: SourceProfile, shape: LTVShape = .saturating) -> Double {
        guard shape == .powerLaw else { return profile.payerRate * (1 - exp(-8 / PlantedModel.firstPurchaseMeanDays)) }
        // No purchase before day 8: each of 1 + Poisson(extra) purchases misses with 1 - F(8).
        let missed = 1 - pow(8 / PlantedModel.purchaseHorizonDays, PlantedModel.powerLawExponent)
        return profile.payerRate * (1 - missed * exp(-profile.extraPurchasesPerPayer * (1 - missed)))
    }

    /// P(X + Y < t) for independent exponentials with means a and b (a != b).
    static func hypoexponentialCDF(_ t: Double, _ a: Double, _ b: Double) -> Double {
        1 - (b * exp(-t / b) - a * exp(-t / a)) / (b - a)
    }

    /// Median hours from the inviter's install to the invitee's: send delay plus accept delay.
    static var cycleTimeHours: Double {
        let a = PlantedModel.inviteSendMeanDays * 24
        let b = PlantedModel.inviteAcceptMeanHours
        var low = 0.0, high = 24.0 * 60
        for _ in 0..<100 {
            let mid = (low + high) / 2
            if hypoexponentialCDF(mid, a, b) < 0.5 { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }

    /// double_down / hold / cut from expected LTV_D180 over CPI.
    static func verdict(ltv: Double, cpi: Double) -> String {
        let ratio = ltv / cpi
        return ratio >= PlantedModel.doubleDownRatio ? "double_down" : ratio < PlantedModel.cutRatio ? "cut" : "hold"
    }
}

import Foundation
import FunnelCalendar
import FunnelCore

/// Realised spend figures of one paid network, from the ad spend rows as finally stated.
struct SpendTally {
    var spendCents = 0
    var paidInstalls = 0
    var impressions = 0
    var clicks = 0
    var rows = 0
    var restatements = 0
    var dailyCPILow = Double.infinity
    var dailyCPIHigh = 0.0
}

extension DataGenerator {
    /// The CPI of a paid source on a day with `volume` paid installs, from the planted response
    /// curve: spend = cpi_base * (1 + cpi_saturation) * reference * (volume / reference)^(1/b)
    /// (reference: the planned mean daily installs), so the CPI is cpi_base * (1 + cpi_saturation)
    /// at the planned mean and rises as volume^(1/b - 1); times the weekend multiplier on Sat/Sun
    /// and the planted peak-day multiplier.
    /// A saturating source instead costs K / (M' - volume) an install (`saturatingCurve`), so
    /// that installs = M' spend / (K + spend).
    func cpi(source: Int, day: Int, volume: Double) -> Double {
        let profile = PlantedModel.sources[source]
        let weekend = CivilTime.weekday(days: startDay + day) >= 5 ? profile.weekendMultiplier : 1
        let reference = max(plannedDailyPaid[source], 1e-9)
        if let curve = saturatingCurve(source: source) {
            let dayCapacity = curve.capacity / weekend
            return curve.halfSpend / (dayCapacity - min(volume, 0.95 * dayCapacity)) * inflation(source: source, day: day)
        }
        let saturation = pow(max(volume, 1e-9) / reference, 1 / profile.responseExponent - 1)
        return profile.cpiBase * (1 + profile.cpiSaturation) * saturation * weekend * inflation(source: source, day: day)
    }

    /// The planted saturating curve of a source with `saturatingCapacity` m: weekday capacity M =
    /// m times its busiest planned day (Sat/Sun: M / weekend multiplier), and K = cpi_base * (1 +
    /// cpi_saturation) * (M - reference), so that the planned mean daily installs (reference)
    /// cost cpi_base * (1 + cpi_saturation) each on a weekday. Nil for a power-law source.
    func saturatingCurve(source: Int) -> (capacity: Double, halfSpend: Double)? {
        let profile = PlantedModel.sources[source]
        guard let multiple = profile.saturatingCapacity else { return nil }
        let reference = max(plannedDailyPaid[source], 1e-9)
        let capacity = multiple * max(plannedPaidByDay[source].max() ?? reference, reference)
        return (capacity, profile.cpiBase * (1 + profile.cpiSaturation) * (capacity - reference))
    }

    /// The planted peak-day CPI multiplier of a source on a day (1 on ordinary days).
    func inflation(source: Int, day: Int) -> Double {
        PlantedModel.inflatedDays.first { $0.source == source && inflatedDay($0.dayShare) == day }?.multiplier ?? 1
    }

    /// The day index of a planted peak day.
    func inflatedDay(_ share: Double) -> Int { Int((share * Double(days)).rounded(.down)) }

    /// Writes one ad spend row per (date, network, campaign, country) with installs, spend =
    /// installs x that day's CPI (x the country's multiplier); a planted share is first stated with
    /// a wrong spend and restated at the end of the file with the true one.
    func writeAdSpend() throws {
        var random = SeededRandom(seed: seed, stream: 9_000)
        let countries = PlantedModel.countries.count
        let sourceCount = PlantedModel.sources.count
        var restated: [(day: Int, source: Int, campaign: Int, country: Int, cents: Int, impressions: Int, clicks: Int)] = []
        spendTallies = Array(repeating: SpendTally(), count: sourceCount)
        for day in 0..<days {
            for source in PlantedModel.paidIndices {
                let profile = PlantedModel.sources[source]
                var volume = 0
                let base = (day * sourceCount + source) * maxCampaigns * countries
                for index in base..<(base + maxCampaigns * countries) { volume += Int(paidCells[index]) }
                guard volume > 0 else { continue }
                let dayCPI = cpi(source: source, day: day, volume: Double(volume))
                var daySpendCents = 0
                spendTallies[source].dailyCPILow = min(spendTallies[source].dailyCPILow, dayCPI)
                spendTallies[source].dailyCPIHigh = max(spendTallies[source].dailyCPIHigh, dayCPI)
                for campaign in 0..<profile.campaigns.count {
                    for country in 0..<countries {
                        let installs = Int(paidCells[base + campaign * countries + country])
                        guard installs > 0 else { continue }
                        let cents = Int((Double(installs) * dayCPI * PlantedModel.countryCPIMultipliers[country] * 100)
                            .rounded())
                        let clicks = max(installs, Int((Double(installs) / profile.clickToInstall
                            * (1 + 0.05 * random.normal())).rounded()))
                        let impressions = max(clicks, Int((Double(clicks) / profile.ctr
                            * (1 + 0.05 * random.normal())).rounded()))
                        var written = cents
                        if random.chance(PlantedModel.restatementShare) {
                            written = Int(Double(cents) * random.uniform(0.8, 1.2)) + 1
                            if written == cents { written += 100 }
                            restated.append((day, source, campaign, country, cents, impressions, clicks))
                            spendTallies[source].restatements += 1
                        }
                        if options.hourlySpend {
                            writeHourRows(day: day, source: source, cell: base + campaign * countries + country,
                                          campaign: campaign, country: country, cents: written,
                                          impressions: impressions, clicks: clicks, counts: written == cents)
                        } else {
                            writeSpendRow(day: day, source: source, campaign: campaign, country: country,
                                          cents: written, impressions: impressions, clicks: clicks)
                        }
                        spendTallies[source].spendCents += cents
                        daySpendCents += cents
                        spendTallies[source].paidInstalls += installs
                        spendTallies[source].impressions += impressions
                        spendTallies[source].clicks += clicks
                        spendTallies[source].rows += 1
                    }
                }
                if inflation(source: source, day: day) != 1 { inflatedSpendCents[source] = daySpendCents }
            }
        }
        for row in restated {
            if options.hourlySpend {
                let countries = PlantedModel.countries.count
                let cell = ((row.day * sourceCount + row.source) * maxCampaigns + row.campaign) * countries + row.country
                writeHourRows(day: row.day, source: row.source, cell: cell, campaign: row.campaign, country: row.country,
                              cents: row.cents, impressions: row.impressions, clicks: row.clicks, counts: true)
            } else {
                writeSpendRow(day: row.day, source: row.source, campaign: row.campaign, country: row.country,
                              cents: row.cents, impressions: row.impressions, clicks: row.clicks)
            }
        }
    }

    /// Splits one (day, network, campaign, country) spend over the hours its paid installs came
    /// in: each install costs the same except in the source's planted peak hour, where it costs
    /// `multiplier` times as much; the hours' spend adds up to `cents` exactly. Impressions
    /// and clicks are split by installs. A restated day is written wrong then right, hour by hour.
    /// `counts`: the rows are the final statement, tallied for truth.json.
    private func writeHourRows(day: Int, source: Int, cell: Int, campaign: Int, country: Int, cents: Int,
                               impressions: Int, clicks: Int, counts: Bool) {
        let peak = PlantedModel.peakHours.first { $0.source == source }
        let hours = (0..<24).map { Int(paidHourCells[cell * 24 + $0]) }
        let total = hours.reduce(0, +)
        guard total > 0 else { return }
        let weights = hours.enumerated().map { hour, installs in Double(installs) * (hour == peak?.hour ? peak!.multiplier : 1) }
        let weightSum = weights.reduce(0, +)
        var split = weights.map { Int((Double(cents) * $0 / weightSum).rounded()) }
        // The rounding remainder goes to the busiest hour, so the hours add up to the day exactly.
        let busiest = hours.indices.max { hours[$0] < hours[$1] }!
        split[busiest] += cents - split.reduce(0, +)
        var tally = peakHourTallies[source] ?? (0, 0, 0, 0)
        for hour in 0..<24 where hours[hour] > 0 {
            let hourCents = split[hour]
            let share = Double(hours[hour]) / Double(total)
            writeSpendRow(day: day, source: source, campaign: campaign, country: country, cents: hourCents,
                          impressions: Int((Double(impressions) * share).rounded()),
                          clicks: Int((Double(clicks) * share).rounded()), hour: hour)
            if counts {
                tally.cents += hourCents
                tally.installs += hours[hour]
                if hour == peak?.hour {
                    tally.peakCents += hourCents
                    tally.peakInstalls += hours[hour]
                }
            }
        }
        if peak != nil { peakHourTallies[source] = tally }
    }

    private func writeSpendRow(day: Int, source: Int, campaign: Int, country: Int, cents: Int,
                               impressions: Int, clicks: Int, hour: Int? = nil) {
        adSpend.beginRow()
        adSpend.text(appID)
        adSpend.date(days: startDay + day)
        adSpend.text(PlantedModel.sources[source].nameBytes)
        adSpend.decimal(cents, places: 2)
        adSpend.text(campaignNames[source][campaign])
        adSpend.text(countryNames[country])
        adSpend.text("USD")
        adSpend.int(impressions)
        adSpend.int(clicks)
        if let hour { adSpend.int(hour) } else { adSpend.null() }
        adSpend.endRow()
    }
}

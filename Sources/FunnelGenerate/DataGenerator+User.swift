import FunnelCalendar
import FunnelCore
import Foundation

extension DataGenerator {
    /// Writes every event of one user: install, onboarding, opens, retention rows, reinstall,
    /// purchases and invites (converted invites queue their invitee).
    func generateUser(_ user: NewUser, random: inout SeededRandom) {
        let source = user.source
        let profile = PlantedModel.sources[source]
        let installDay = dayIndex(user.installMs)
        let horizon = days - installDay
        writeInstall(user, atMs: user.installMs)
        stats.installs[source] += 1
        if profile.isPaid {
            let cell = ((installDay * PlantedModel.sources.count + source) * maxCampaigns + user.campaign)
                * PlantedModel.countries.count + user.country
            paidCells[cell] += 1
            if !paidHourCells.isEmpty {
                let hour = Int((user.installMs - startMs - Int64(installDay) * CivilTime.msPerDay) / 3_600_000)
                paidHourCells[cell * 24 + min(max(hour, 0), 23)] += 1
            }
        }
        if user.referrer >= 0 {
            stats.viralInstalls[user.inviterSource] += 1
            if user.inviterMature { stats.viralInstallsMature[user.inviterSource] += 1 }
            if user.inviterMature { stats.addCycle(hours: Double(user.installMs - user.inviterInstallMs) / 3_600_000) }
        }
        let kMature = installDay + PlantedModel.inviteWindowDays + 7 <= days - 1
        stats.cohortUsers[source] += 1
        if kMature { stats.cohortUsersMature[source] += 1 }

        for day in 0...horizon where day <= days {
            activeDay[day] = false
            opensOnDay[day] = 0
        }
        let opened = random.chance(PlantedModel.openRate)
        var completed = false
        if opened {
            let delay = min(random.lognormal(mean: 240, sigma: 1.2), 6 * 3600)
            let firstOpenMs = (user.installMs / 1000 + Int64(delay) + 5) * 1000
            completed = onboard(user, atMs: firstOpenMs, random: &random)
            if firstOpenMs < endMs {
                writeOpen(user, atMs: firstOpenMs, random: &random)
                markOpen(firstOpenMs, installDay: installDay)
            }
            let engagement = PlantedModel.engagementLevels[random.below(PlantedModel.engagementLevels.count)]
            let multiplier = engagement * (completed ? Self.completerMultiplier : PlantedModel.dropoutMultiplier)
                / PlantedModel.openRate
            let extra = random.poisson(mean: PlantedModel.extraOpensDay0)
            let dayEnd = startMs + Int64(installDay + 1) * CivilTime.msPerDay
            for _ in 0..<extra {
                let later = firstOpenMs + Int64(60 + random.below(6 * 3600)) * 1000
                if later < dayEnd && later < endMs {
                    writeOpen(user, atMs: later, random: &random)
                    markOpen(later, installDay: installDay)
                }
            }
            activity(user, installDay: installDay, multiplier: multiplier, random: &random)
            purchasesFor(user, installDay: installDay, firstOpenMs: firstOpenMs,
                         payerMultiplier: (completed ? Self.completerMultiplier : PlantedModel.dropoutMultiplier)
                            / PlantedModel.openRate,
                         random: &random)
            invitesFor(user, installDay: installDay, firstOpenMs: firstOpenMs, multiplier: multiplier,
                       kMature: kMature, random: &random)
        }
        recordRetention(source: source, installDay: installDay)
    }

    /// Retention multiplier of users who completed onboarding, so that the mean over openers is 1
    /// at the planned completion rate (drop-outs come back less: `dropoutMultiplier`).
    static var completerMultiplier: Double {
        let q = Onboarding.plannedCompletion
        return (1 - PlantedModel.dropoutMultiplier * (1 - q)) / q
    }

    private func markOpen(_ ms: Int64, installDay: Int) {
        let offset = dayIndex(ms) - installDay
        activeDay[offset] = true
        opensOnDay[offset] += 1
    }

    /// Opens on days 1..horizon following the source's retention curve, the reinstall, and the
    /// attribution partner's retention rows.
    private func activity(_ user: NewUser, installDay: Int, multiplier: Double, random: inout SeededRandom) {
        let profile = PlantedModel.sources[user.source]
        var wantsReinstall = random.chance(PlantedModel.reinstallShare)
        let partner = random.chance(PlantedModel.retentionPartnerShare)
        let lastOffset = days - 1 - installDay
        guard lastOffset >= 1 else { return }
        for offset in 1...lastOffset {
            let p = profile.retention(day: offset) * multiplier
            guard random.chance(p) else { continue }
            let count = 1 + random.poisson(mean: PlantedModel.extraOpensPerActiveDay)
            let dayStart = startMs + Int64(installDay + offset) * CivilTime.msPerDay
            var firstMs = Int64.max
            for _ in 0..<count {
                let ms = dayStart + timeOfDay(&random)
                firstMs = min(firstMs, ms)
                writeOpen(user, atMs: ms, random: &random)
            }
            activeDay[offset] = true
            opensOnDay[offset] += count
            if wantsReinstall && offset >= 2 {
                wantsReinstall = false
                let ms = max(dayStart, firstMs - Int64(60 + random.below(540)) * 1000)
                writeInstall(user, atMs: ms)
                stats.reinstalls += 1
            }
            if partner && offset <= PlantedModel.retentionPartnerMaxDay {
                retention.beginRow()
                retention.id("r", retention.nextSerial())
                retention.text(appID)
                retention.id("u", user.number)
                retention.int(offset)
                retention.timestamp(ms: dayStart + Int64(82_800 + random.below(3000)) * 1000)
                retention.endRow()
            }
        }
    }

    private func recordRetention(source: Int, installDay: Int) {
        let lastOffset = days - 1 - installDay
        for offset in 1...RealisedStats.curveDays where offset <= lastOffset {
            stats.retentionCohort[source][offset] += 1
            if activeDay[offset] { stats.retentionActive[source][offset] += 1 }
        }
        if lastOffset >= PlantedModel.regularDays {
            stats.regularCohort[source] += 1
            var opensInWindow = 0
            for offset in 1...PlantedModel.regularDays { opensInWindow += opensOnDay[offset] }
            if opensInWindow >= PlantedModel.regularOpens { stats.regularUsers[source] += 1 }
        }
        for (index, horizon) in RealisedStats.ltvDays.enumerated() where horizon <= lastOffset {
            stats.ltvCohort[source][index] += 1
        }
        stats.fullLTVUsers[source] += 1
    }

    // MARK: Purchases

    private func purchasesFor(_ user: NewUser, installDay: Int, firstOpenMs: Int64, payerMultiplier: Double,
                              random: inout SeededRandom) {
        let profile = PlantedModel.sources[user.source]
        guard random.chance(profile.payerRate * payerMultiplier) else { return }
        let count = 1 + random.poisson(mean: profile.extraPurchasesPerPayer)
        let meanPerPurchase = profile.revenuePerPayerUSD / (1 + profile.extraPurchasesPerPayer)
        let first = random.exponential(mean: PlantedModel.firstPurchaseMeanDays)
        let lastOffset = days - 1 - installDay
        var paidByD7 = false
        for index in 0..<count {
            let offsetDays = options.ltvShape.purchaseOffsetDays(index: index, first: first, random: &random)
            let usd = random.lognormal(mean: meanPerPurchase, sigma: PlantedModel.purchaseSigma)
            let dayOffset = Int(offsetDays)
            let dayStart = startMs + Int64(installDay + dayOffset) * CivilTime.msPerDay
            var ms = dayStart + Int64(random.below(86_400)) * 1000
            if ms < firstOpenMs { ms = firstOpenMs + Int64(30 + random.below(600)) * 1000 }
            let offset = dayIndex(ms) - installDay
            let country = user.country
            let rate = currencyRates[country]
            let wholeUnits = rate < 0.05
            let scaled = max(1, Int((usd / rate * (wholeUnits ? 1 : 100)).rounded()))
            let writtenUSD = Double(scaled) / (wholeUnits ? 1 : 100) * rate
            for (h, horizon) in RealisedStats.fullLTVDays.enumerated() where offset <= horizon {
                stats.fullLTVRevenue[user.source][h] += writtenUSD
            }
            guard ms < endMs else { continue }
            purchases.beginRow()
            purchases.id("p", purchases.nextSerial())
            purchases.text(appID)
            purchases.id("u", user.number)
            purchases.timestamp(ms: ms)
            purchases.decimal(scaled, places: wholeUnits ? 0 : 2)
            purchases.text(currencyNames[country])
            purchases.text(usd < 5 ? "coins_small" : usd < 20 ? "coins_medium" : usd < 60 ? "coins_large" : "vip_bundle")
            purchases.endRow()
            stats.purchases += 1
            stats.revenueUSD[user.source] += writtenUSD
            for (h, horizon) in RealisedStats.ltvDays.enumerated() where horizon <= lastOffset && offset <= horizon {
                stats.ltvRevenue[user.source][h] += writtenUSD
            }
            if offset <= 7 { paidByD7 = true }
        }
        if paidByD7 && lastOffset >= 7 { stats.payersD7[user.source] += 1 }
    }

    // MARK: Invites

    private func invitesFor(_ user: NewUser, installDay: Int, firstOpenMs: Int64, multiplier: Double,
                            kMature: Bool, random: inout SeededRandom) {
        let count = random.poisson(mean: PlantedModel.invitesPerUser * multiplier)
        let window = Double(PlantedModel.inviteWindowDays)
        for _ in 0..<count {
            var offsetDays = random.exponential(mean: PlantedModel.inviteSendMeanDays)
            while offsetDays >= window - 0.01 { offsetDays = random.exponential(mean: PlantedModel.inviteSendMeanDays) }
            var sentMs = (user.installMs / 1000 + Int64(offsetDays * 86_400)) * 1000
            if sentMs < firstOpenMs { sentMs = firstOpenMs + 30_000 }
            let converts = random.chance(PlantedModel.inviteConversion)
            let acceptHours = random.exponential(mean: PlantedModel.inviteAcceptMeanHours)
            let channel = random.below(PlantedModel.inviteChannels.count)
            guard sentMs < endMs else { continue }
            nextInvite += 1
            let inviteNumber = nextInvite
            invites.beginRow()
            invites.id("v", invites.nextSerial())
            invites.text(appID)
            invites.id("u", user.number)
            invites.id("inv", inviteNumber)
            invites.timestamp(ms: sentMs)
            invites.text(PlantedModel.inviteChannels[channel])
            invites.endRow()
            stats.invitesSent[user.source] += 1
            if kMature { stats.invitesSentMature[user.source] += 1 }
            guard converts else { continue }
            let inviteeMs = (sentMs / 1000 + Int64(acceptHours * 3600) + 1) * 1000
            guard inviteeMs < endMs else { continue }
            enqueueInvitee(NewUser(number: -1, source: PlantedModel.viralIndex, campaign: -1, country: user.country,
                                   ios: user.ios, installMs: inviteeMs, referrer: user.number, invite: inviteNumber,
                                   inviterInstallMs: user.installMs, inviterSource: user.source,
                                   inviterMature: kMature))
        }
    }

    // MARK: Rows

    func writeInstall(_ user: NewUser, atMs ms: Int64) {
        installs.beginRow()
        installs.id("i", installs.nextSerial())
        installs.text(appID)
        installs.id("u", user.number)
        installs.timestamp(ms: ms)
        installs.text(user.referrer >= 0 ? PlantedModel.sources[PlantedModel.organicIndex].nameBytes
                      : PlantedModel.sources[user.source].nameBytes)
        installs.text(user.ios ? "ios" : "android")
        installs.text(countryNames[user.country])
        if user.campaign >= 0 { installs.text(campaignNames[user.source][user.campaign]) } else { installs.null() }
        if user.referrer >= 0 {
            installs.id("u", user.referrer)
            installs.id("inv", user.invite)
        } else {
            installs.null()
            installs.null()
        }
        installs.endRow()
    }

    private func writeOpen(_ user: NewUser, atMs ms: Int64, random: inout SeededRandom) {
        opens.beginRow()
        opens.id("o", opens.nextSerial())
        opens.text(appID)
        opens.id("u", user.number)
        opens.timestamp(ms: ms)
        opens.int(Int(random.lognormal(mean: PlantedModel.sessionSecondsMedian * 1.5, sigma: 0.9)) + 1)
        opens.endRow()
    }
}

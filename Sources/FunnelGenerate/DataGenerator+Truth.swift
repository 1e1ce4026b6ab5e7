import FunnelCalendar
import FunnelCore
import Foundation

extension DataGenerator {
    /// Writes truth.json and returns the run's summary.
    func finish() throws -> GenerationResult {
        let files = generatedFiles()
        let truth = makeTruth(files: files)
        let path = options.outputDirectory + "/truth.json"
        var data = try truth.encoded()
        data.append(UInt8(ascii: "\n"))
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw GeneratorError.cannotWrite(path)
        }
        return GenerationResult(files: files, truthPath: path, truth: truth)
    }

    private func generatedFiles() -> [GeneratedFile] {
        var files: [GeneratedFile] = []
        for writer in writers {
            let dirty = writer.dirtyCounts.reduce(0) { $0 + $1.1 }
            files.append(GeneratedFile(name: Self.fileName(writer.kind, options: options, late: false),
                                       kind: writer.kind.name, rows: writer.mainFileRows, dirtyRows: dirty,
                                       bytes: writer.main.bytesWritten))
            if let late = writer.late {
                files.append(GeneratedFile(name: Self.fileName(writer.kind, options: options, late: true),
                                           kind: writer.kind.name, rows: writer.lateFileRows, dirtyRows: 0,
                                           bytes: late.bytesWritten))
            }
        }
        return files
    }

    private func ratio(_ a: Double, _ b: Double) -> Double? { b > 0 ? a / b : nil }
    private func ratio(_ a: Int, _ b: Int) -> Double? { b > 0 ? Double(a) / Double(b) : nil }

    private func makeTruth(files: [GeneratedFile]) -> TruthFile {
        let sources = PlantedModel.sources
        var networks: [NetworkTruth] = []
        for (index, profile) in sources.enumerated() {
            networks.append(NetworkTruth(
                network: profile.name,
                kind: profile.isPaid ? "paid" : profile.isViral ? "invite" : "organic",
                installNetworkValue: profile.isViral ? "organic" : profile.name,
                planted: planted(index), realised: realised(index)))
        }
        let spendCents = spendTallies.reduce(0) { $0 + $1.spendCents }
        let invitesMature = stats.invitesSentMature.reduce(0, +)
        let viralMature = stats.viralInstallsMature.reduce(0, +)
        let cohortMature = stats.cohortUsersMature.reduce(0, +)
        let eventWriters = writers.filter { $0.kind.isEvent }
        let invitees = stats.installs[PlantedModel.viralIndex]
        let screens = Onboarding.screens
        var reached: [String: Int] = [:]
        var dropoff: [String: Double] = [:]
        for (index, screen) in screens.enumerated() {
            reached[screen] = stats.screenReached[index]
            let next = index + 1 < screens.count ? stats.screenReached[index + 1] : stats.onboardingCompleted
            dropoff[screen] = ratio(stats.screenReached[index] - next, stats.screenReached[index]) ?? 0
        }
        return TruthFile(
            about: """
            Ground truth of a synthetic funnel data set written by `funnel generate`. "planted" values are \
            the model's parameters and expectations; "realised" values are computed from the rows written \
            (deduplicated by event_id, late-file rows included, invalid rows excluded, the last ad_spend row \
            of a key wins) with docs/metrics.md's definitions, over cohorts whose measured days have fully happened.
            """,
            generator: GeneratorTruth(
                seed: options.seed, users: options.users, days: days, startDate: options.startDate,
                lastDate: CivilTime.dateString(days: startDay + days - 1), appId: options.appID,
                format: options.format.rawValue, gzip: options.gzip, dirty: options.dirty,
                reportingTimeZone: "UTC", dayRule: "calendar days in UTC; day 0 is the install day"),
            definitions: [
                "retention_curve": "P(active on day d >= 1) = a * d^-b per source (a = day-1 retention, b from day 30); each user has an engagement multiplier in {0.5, 1, 1.5}, onboarding drop-outs x\(PlantedModel.dropoutMultiplier); 5% of installs never open",
                "active": "an open or a retention row on that calendar day",
                "regular_user": "at least \(PlantedModel.regularOpens) opens on days 1..\(PlantedModel.regularDays) (cohorts with day 7 in the data)",
                "ltv": "cumulative purchase revenue in USD (ReferenceRates) on days 0..N over cohort installs; purchases: payers make 1 + Poisson(extra) purchases timed by the LTV shape (\(options.ltvShape.definition)); amounts lognormal (sigma \(PlantedModel.purchaseSigma)) in the country's currency",
                "cpi": "spend / paid installs; daily CPI = cpi_base * (1 + cpi_saturation) * (installs_that_day / planned_mean_daily_installs)^(1/b - 1) * (weekend_multiplier on Sat/Sun) * (the peak-day multiplier on inflated_days) * country multiplier (install-weighted mean 1); b is spend_response's exponent_b; a network whose spend_response curve_form is saturating instead costs K / (M' - installs_that_day), M' its capacity on the day",
                "spend_response": "installs = scale_a * spend^exponent_b on the average weekday (curve_form power law) or capacity_installs * spend / (half_saturation_spend_usd + spend) (saturating); headroom_spend_usd is where the marginal CPI meets the LTV: (scale_a * b * expected_ltv_d180)^(1/(1-b)), or sqrt(capacity * K * LTV) - K",
                "planned_optimum": "the daily split of budget_usd (the planned daily spend of the paid networks) that maximises the sum of expected_ltv_d180 * installs on the planted curves (average weekday), each network at most max_spend_multiple x its planned daily spend: the marginal returns LTV / marginal CPI are equal (marginal_return) across the networks not at their maximum",
                "peak_hours": "with hourly spend: in the planted hour (UTC) a network's installs cost cpi_multiplier times its other hours'; cpi_index = that hour's CPI over the network's CPI across all hours, as written",
                "k_factor": "viral installs (installs with referrer_user_id/invite_id) per cohort user = invites sent within W days / cohort size x installs from those invites / invites sent",
                "verdict": "expected LTV_D180 / expected CPI >= \(PlantedModel.doubleDownRatio): double_down; < \(PlantedModel.cutRatio): cut; else hold",
                "viral_installs": "written with network organic, referrer_user_id and invite_id set; their own source here is `invite`",
            ],
            networks: networks,
            totals: TotalsTruth(
                acquiredUsers: options.users, invitedUsers: invitees, users: options.users + invitees,
                installRows: eventRows(.installs), reinstalls: stats.reinstalls,
                paidInstalls: spendTallies.reduce(0) { $0 + $1.paidInstalls },
                spendUsd: Double(spendCents) / 100, purchases: stats.purchases,
                revenueUsd: stats.revenueUSD.reduce(0, +),
                events: Dictionary(uniqueKeysWithValues: eventWriters.map { ($0.kind.name, $0.rows) }),
                rowsWritten: files.reduce(0) { $0 + $1.rows }, bytesWritten: files.reduce(0) { $0 + $1.bytes }),
            invites: InviteTruth(
                windowDays: PlantedModel.inviteWindowDays, plantedInvitesPerUser: PlantedModel.invitesPerUser,
                plantedInviteConversion: PlantedModel.inviteConversion,
                plantedKFactor: PlantedModel.invitesPerUser * PlantedModel.inviteConversion,
                plantedCycleTimeHours: PlantedExpectations.cycleTimeHours,
                sendDelayMeanDays: PlantedModel.inviteSendMeanDays,
                acceptDelayMeanHours: PlantedModel.inviteAcceptMeanHours,
                matureCohortRule: "install day + W + 7 <= last day of data",
                matureCohortUsers: cohortMature,
                realisedInvitesPerUser: ratio(invitesMature, cohortMature),
                realisedInviteConversion: ratio(viralMature, invitesMature),
                realisedKFactor: ratio(viralMature, cohortMature),
                invitesSent: stats.invitesSent.reduce(0, +), viralInstalls: stats.viralInstalls.reduce(0, +),
                realisedCycleTimeHours: stats.medianCycleHours,
                inviteesDroppedFromQueue: stats.inviteesDropped),
            onboarding: OnboardingTruth(
                steps: screens + [Onboarding.completeStep],
                plantedBaseDropoff: Dictionary(uniqueKeysWithValues: zip(screens, Onboarding.baseDropoff)),
                plannedCompletion: Onboarding.plannedCompletion,
                dropoutRetentionMultiplier: PlantedModel.dropoutMultiplier,
                started: stats.onboardingStarted, reached: reached, completed: stats.onboardingCompleted,
                realisedDropoff: dropoff,
                realisedCompletion: ratio(stats.onboardingCompleted, stats.onboardingStarted)),
            friction: frictionTruth(),
            messiness: MessinessTruth(
                plantedDuplicateShare: PlantedModel.messiness.duplicateShare,
                plantedLateShare: PlantedModel.messiness.lateShare,
                duplicates: Dictionary(uniqueKeysWithValues: eventWriters.map { ($0.kind.name, $0.duplicates) }),
                lateRows: Dictionary(uniqueKeysWithValues: eventWriters.map { ($0.kind.name, $0.lateRows) }),
                adSpendRestatements: spendTallies.reduce(0) { $0 + $1.restatements },
                restatementRule: "a restated (date, network, campaign, country) first appears with a wrong spend; the true spend follows in a later row of the same file",
                plantedOffsetTimestampShare: PlantedModel.messiness.offsetShare,
                offsetTimestamps: eventWriters.reduce(0) { $0 + $1.offsetTimestamps },
                epochMillisecondTimestamps: eventWriters.reduce(0) { $0 + $1.epochTimestamps },
                nearMidnightInstalls: stats.nearMidnightInstalls),
            dirty: dirtyTruth(),
            files: files,
            spendResponse: spendResponseTruth(),
            inflatedDays: inflatedDayTruth(),
            peakHours: peakHourTruth(),
            ltv: ltvTruth(),
            plannedOptimum: SpendResponseTruth.plannedOptimum(spendResponseTruth()))
    }

    /// The planted LTV curve per install network and for the app, beside what the same users pay
    /// through each horizon when their purchases after the last day of data are counted too.
    private func ltvTruth() -> LTVTruth {
        let days = RealisedStats.fullLTVDays
        var groups: [(name: String, sources: [Int])] = PlantedModel.paidIndices.map { (PlantedModel.sources[$0].name, [$0]) }
        groups.append(("organic", [PlantedModel.organicIndex, PlantedModel.viralIndex]))
        groups.append(("all", Array(PlantedModel.sources.indices)))
        let curves = groups.map { group in
            let users = group.sources.reduce(0) { $0 + stats.fullLTVUsers[$1] }
            let expected = days.map { day in
                group.sources.reduce(0.0) { total, source in
                    total + Double(stats.fullLTVUsers[source])
                        * PlantedExpectations.ltv(PlantedModel.sources[source], day: day, shape: options.ltvShape)
                } / Double(max(users, 1))
            }
            let realised = days.indices.map { index in
                group.sources.reduce(0.0) { $0 + stats.fullLTVRevenue[$1][index] } / Double(max(users, 1))
            }
            return LTVCurveTruth(network: group.name, users: users, expected: expected, fullHistory: realised)
        }
        return LTVTruth(
            shape: options.ltvShape.rawValue, definition: options.ltvShape.definition, days: days,
            fullHistoryRule: "revenue per install through day N of every generated user, purchases after the last day of data included (simulated with the same draws, not written); expected is the planted model's expectation for the same mix of sources",
            networks: curves)
    }

    private func eventRows(_ kind: EventKind) -> Int { writers.first { $0.kind == kind }?.rows ?? 0 }

    private func planted(_ index: Int) -> NetworkPlanted {
        let profile = PlantedModel.sources[index]
        var expectedCPI = 0.0
        if profile.isPaid {
            var spend = 0.0, installs = 0.0
            for day in 0..<days {
                let volume = plannedPaidByDay[index][day]
                spend += volume * cpi(source: index, day: day, volume: volume)
                installs += volume
            }
            expectedCPI = installs > 0 ? spend / installs : profile.cpiBase
        }
        let ltv180 = PlantedExpectations.ltv(profile, day: 180, shape: options.ltvShape)
        return NetworkPlanted(
            shareOfNonViralInstalls: profile.share, cpiBase: profile.cpiBase, cpiSaturation: profile.cpiSaturation,
            weekendMultiplier: profile.weekendMultiplier, expectedCpi: expectedCPI, ctr: profile.ctr,
            clickToInstall: profile.clickToInstall, retentionCurveA: profile.curveA, retentionCurveB: profile.curveB,
            retentionD1: profile.retention(day: 1), retentionD3: profile.retention(day: 3),
            retentionD7: profile.retention(day: 7), retentionD14: profile.retention(day: 14),
            retentionD30: profile.retention(day: 30),
            expectedRegularUserShare: PlantedExpectations.regularShare(profile),
            payerRate: profile.payerRate, expectedPayerRateD7: PlantedExpectations.payerRateD7(profile, shape: options.ltvShape),
            meanRevenuePerPayerUsd: profile.revenuePerPayerUSD,
            meanPurchasesPerPayer: 1 + profile.extraPurchasesPerPayer,
            expectedLtvD7: PlantedExpectations.ltv(profile, day: 7, shape: options.ltvShape),
            expectedLtvD30: PlantedExpectations.ltv(profile, day: 30, shape: options.ltvShape),
            expectedLtvD90: PlantedExpectations.ltv(profile, day: 90, shape: options.ltvShape),
            expectedLtvD180: ltv180,
            expectedLtvD365: PlantedExpectations.ltv(profile, day: 365, shape: options.ltvShape),
            ltvD180ToCpi: profile.isPaid ? ltv180 / expectedCPI : nil,
            expectedVerdict: profile.isPaid ? PlantedExpectations.verdict(ltv: ltv180, cpi: expectedCPI)
                : "not applicable (no spend)")
    }

    private func realised(_ index: Int) -> NetworkRealised {
        let tally = spendTallies[index]
        let cohort = stats.retentionCohort[index]
        let active = stats.retentionActive[index]
        let retention = (0...RealisedStats.curveDays).map { $0 == 0 ? nil : ratio(active[$0], cohort[$0]) }
        let ltv = RealisedStats.ltvDays.indices.map { ratio(stats.ltvRevenue[index][$0], Double(stats.ltvCohort[index][$0])) }
        let d7 = RealisedStats.ltvDays.firstIndex(of: 7)!
        return NetworkRealised(
            installs: stats.installs[index], paidInstalls: tally.paidInstalls,
            spendUsd: Double(tally.spendCents) / 100,
            cpi: ratio(Double(tally.spendCents) / 100, Double(tally.paidInstalls)),
            dailyCpiLow: tally.dailyCPILow.isFinite ? tally.dailyCPILow : nil,
            dailyCpiHigh: tally.dailyCPIHigh > 0 ? tally.dailyCPIHigh : nil,
            impressions: tally.impressions, clicks: tally.clicks,
            ctr: ratio(tally.clicks, tally.impressions), clickToInstall: ratio(tally.paidInstalls, tally.clicks),
            adSpendRows: tally.rows, restatedAdSpendRows: tally.restatements,
            retentionByDay: retention, retentionCohortByDay: cohort,
            retentionD1: retention[1], retentionD7: retention[7], retentionD30: retention[30],
            regularUserShare: ratio(stats.regularUsers[index], stats.regularCohort[index]),
            regularUserCohort: stats.regularCohort[index],
            payerRateD7: ratio(stats.payersD7[index], stats.ltvCohort[index][d7]),
            revenueUsd: stats.revenueUSD[index],
            ltvDays: RealisedStats.ltvDays, ltvByDay: ltv, ltvCohortByDay: stats.ltvCohort[index],
            invitesPerUserMature: ratio(stats.invitesSentMature[index], stats.cohortUsersMature[index]),
            kFactorMature: ratio(stats.viralInstallsMature[index], stats.cohortUsersMature[index]))
    }

    private func frictionTruth() -> FrictionTruth {
        var planted: [FrictionSignal] = []
        var unplanted: [FrictionSignal] = []
        for signal in Onboarding.Signal.allCases {
            let i = signal.rawValue
            let screen = signal.screen
            let base = Onboarding.baseDropoff[screen]
            let (share, hitDrop): (Double?, Double) = switch signal {
            case .signupKeyboardCoversAction: (nil, Onboarding.signupCoveredDropoff)
            case .permissionsDeniedWithoutGuidance: (Onboarding.permissionDeniedShare, Onboarding.permissionDeniedDropoff)
            case .profileNetworkErrorWithoutFeedback: (Onboarding.profileNetworkErrorShare, Onboarding.profileNetworkErrorDropoff)
            default: (nil, base)
            }
            let entry = FrictionSignal(
                screen: Onboarding.screens[screen], type: signal.description.type,
                condition: signal.description.condition, planted: signal.isPlanted,
                plantedShareHit: share, plantedScreenDropoffHit: hitDrop, plantedScreenDropoffNotHit: base,
                expectedDropoffHit: 1 - (1 - hitDrop) * Onboarding.completionAfter(screen: screen),
                expectedDropoffNotHit: 1 - (1 - base) * Onboarding.completionAfter(screen: screen),
                usersHit: stats.signalHit[i], usersNotHit: stats.signalMiss[i],
                shareHit: ratio(stats.signalHit[i], stats.signalHit[i] + stats.signalMiss[i]),
                dropoffHit: ratio(stats.signalHitIncomplete[i], stats.signalHit[i]),
                dropoffNotHit: ratio(stats.signalMissIncomplete[i], stats.signalMiss[i]),
                screenDropoffHit: ratio(stats.signalHitLeft[i], stats.signalHit[i]),
                screenDropoffNotHit: ratio(stats.signalMissLeft[i], stats.signalMiss[i]))
            if signal.isPlanted { planted.append(entry) } else { unplanted.append(entry) }
        }
        return FrictionTruth(
            dropoffDefinition: "no onboarding_complete step, among users whose onboarding reached the screen (drop-outs also return less: their retention is x\(PlantedModel.dropoutMultiplier))",
            planted: planted, unplanted: unplanted, unplantedScreens: ["welcome"])
    }

    private func dirtyTruth() -> DirtyTruth {
        var kinds: [DirtyKindTruth] = []
        for writer in writers where options.dirty {
            let counts = writer.dirtyCounts
            kinds.append(DirtyKindTruth(
                kind: writer.kind.name, file: Self.fileName(writer.kind, options: options, late: false),
                total: counts.reduce(0) { $0 + $1.1 },
                byDefect: Dictionary(uniqueKeysWithValues: counts.map { ($0.0.rawValue, $0.1) })))
        }
        return DirtyTruth(enabled: options.dirty, total: kinds.reduce(0) { $0 + $1.total }, byKind: kinds)
    }
}

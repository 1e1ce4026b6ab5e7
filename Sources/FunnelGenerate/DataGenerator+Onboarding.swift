import FunnelCore

/// The state of one onboarding session while its `ux` rows are written.
struct UXSession {
    enum KeyboardKind { case docked, undocked, hardware, accessory }

    let user: Int
    let device: Device
    let inputMode: Int
    let keyboardKind: KeyboardKind
    let leftSide: Bool
    let portraitHeight: Int
    let landscapeHeight: Int
    let accessoryHeight: Int
    var landscape: Bool
    var keyboardUp = false
    var covered = false
    var ms: Int64

    var zh: Bool { inputMode == Onboarding.zhIndex }
    var width: Int { landscape ? device.height : device.width }
    var height: Int { landscape ? device.width : device.height }
    var keyboardHeight: Int { landscape ? landscapeHeight : portraitHeight }

    /// The docked keyboard's end frame when shown.
    var dockedFrame: Frame { Frame(x: 0, y: height - keyboardHeight, w: width, h: keyboardHeight) }
    /// The end frame of a keyboard sliding off the bottom of the window.
    var hiddenFrame: Frame { Frame(x: 0, y: height, w: width, h: keyboardHeight) }
    /// A floating (undocked) keyboard, placed clear of the form.
    var floatingFrame: Frame { Frame(x: width - 340, y: height - 340, w: 320, h: zh ? 290 : 250) }
    /// A hardware keyboard's input accessory bar at the window bottom.
    var accessoryFrame: Frame { Frame(x: 0, y: height - accessoryHeight, w: width, h: accessoryHeight) }

    /// Focused field, primary button and caret of a screen in the current orientation.
    func layout(screen: Int) -> (focus: Frame?, action: Frame, caret: Int?) {
        let w = width, h = height
        let margin = landscape && !device.isTablet ? 60 : 16
        switch screen {
        case 1 where device.isTablet:
            let action = Frame(x: w / 2 - 180, y: h * 35 / 100, w: 360, h: 50)
            let focus = Frame(x: action.x, y: action.y - 80, w: 360, h: 44)
            return (focus, action, focus.y + 12)
        case 1:
            // The signup button sits at a fixed distance from the bottom: it clears the standard
            // keyboards but not the taller Pinyin keyboard in landscape (the planted defect).
            let action = landscape ? Frame(x: margin, y: h - 269, w: w - 2 * margin, h: 44)
                : Frame(x: margin, y: h - 420, w: w - 2 * margin, h: 50)
            let focus = landscape ? Frame(x: margin, y: h - 325, w: w - 2 * margin, h: 40)
                : Frame(x: margin, y: h - 560, w: w - 2 * margin, h: 44)
            return (focus, action, focus.y + 12)
        case 3:
            let action = Frame(x: w - 80, y: landscape ? 8 : 50, w: 64, h: 44)
            let focus = Frame(x: margin, y: landscape ? 52 : 160, w: w - 2 * margin, h: landscape ? 36 : 44)
            return (focus, action, focus.y + 10)
        default:
            let action = landscape ? Frame(x: margin, y: h - 70, w: w - 2 * margin, h: 44)
                : Frame(x: margin, y: h - 120, w: w - 2 * margin, h: 50)
            return (nil, action, nil)
        }
    }
}

extension DataGenerator {
    static let screenNames: [[UInt8]] = Onboarding.screens.map { Array($0.utf8) }
    static let inputModeNames: [[UInt8]] = Onboarding.inputModes.map { Array($0.name.utf8) }
    static let inputModeCumulative = Onboarding.inputModes.map(\.weight).cumulativeSums

    /// Writes the onboarding session of a user's first open (steps and `ux` telemetry) and
    /// returns whether they completed it.
    func onboard(_ user: NewUser, atMs startMs: Int64, random: inout SeededRandom) -> Bool {
        guard startMs < endMs else { return false }
        var session = makeSession(user, atMs: startMs, random: &random)
        var signals: UInt32 = 0
        var reached = 0
        var completed = true
        for screen in 0..<Onboarding.screens.count {
            reached = screen + 1
            writeStep(user, atMs: session.ms, step: Self.screenNames[screen], screen: Self.screenNames[screen])
            session.covered = false
            screenView(&session, screen: screen)
            var dropoff = Onboarding.baseDropoff[screen]
            switch screen {
            case 0:
                if random.chance(Onboarding.welcomeNetworkErrorShare) {
                    signals |= bit(.welcomeNetworkErrorWithFeedback)
                    event(&session, screen: 0, type: "network_error", feedback: true, random: &random)
                }
                if random.chance(Onboarding.welcomeMultiTouchShare) {
                    signals |= bit(.welcomeMultiTouch)
                    event(&session, screen: 0, type: "multi_touch", badState: false, random: &random)
                }
                if random.chance(Onboarding.rotationShare) {
                    signals |= bit(.welcomeRotation)
                    rotate(&session, screen: 0, random: &random)
                }
            case 1:
                let rotates = random.chance(Onboarding.rotationShare)
                let rotatesEarly = random.chance(0.5)
                if rotates && rotatesEarly { rotate(&session, screen: 1, random: &random) }
                showKeyboard(&session, screen: 1, random: &random)
                if random.chance(Onboarding.signupValidationShare) {
                    signals |= bit(.signupValidationErrorWithMessage)
                    event(&session, screen: 1, type: "validation_error", field: "email", message: true, random: &random)
                }
                if random.chance(Onboarding.signupNetworkErrorShare) {
                    signals |= bit(.signupNetworkErrorWithFeedback)
                    event(&session, screen: 1, type: "network_error", feedback: true, random: &random)
                }
                if rotates && !rotatesEarly { rotate(&session, screen: 1, random: &random) }
                if rotates { signals |= bit(.signupRotation) }
                hideKeyboard(&session, screen: 1, random: &random)
                if session.covered {
                    signals |= bit(.signupKeyboardCoversAction)
                    dropoff = Onboarding.signupCoveredDropoff
                }
            case 2:
                if random.chance(Onboarding.permissionDeniedShare) {
                    signals |= bit(.permissionsDeniedWithoutGuidance)
                    event(&session, screen: 2, type: "permission_denied", permission: "location", guidance: false,
                          random: &random)
                    dropoff = Onboarding.permissionDeniedDropoff
                }
                if random.chance(Onboarding.rotationShare) {
                    signals |= bit(.permissionsRotation)
                    rotate(&session, screen: 2, random: &random)
                }
            default:
                let rotates = random.chance(Onboarding.rotationShare)
                if random.chance(Onboarding.profilePhotosDeniedShare) {
                    signals |= bit(.profilePermissionDeniedWithGuidance)
                    event(&session, screen: 3, type: "permission_denied", permission: "photos", guidance: true,
                          random: &random)
                }
                showKeyboard(&session, screen: 3, random: &random)
                if session.keyboardUp { signals |= bit(.profileKeyboardNotCovering) }
                if random.chance(Onboarding.profileValidationShare) {
                    signals |= bit(.profileValidationErrorWithMessage)
                    event(&session, screen: 3, type: "validation_error", field: "display_name", message: true,
                          random: &random)
                }
                if rotates {
                    signals |= bit(.profileRotation)
                    rotate(&session, screen: 3, random: &random)
                }
                hideKeyboard(&session, screen: 3, random: &random)
                if random.chance(Onboarding.profileNetworkErrorShare) {
                    signals |= bit(.profileNetworkErrorWithoutFeedback)
                    event(&session, screen: 3, type: "network_error", feedback: false, random: &random)
                    dropoff = Onboarding.profileNetworkErrorDropoff
                }
            }
            session.ms += Int64(random.lognormal(mean: screen == 1 ? 9000 : 4000, sigma: 0.6))
            if random.chance(dropoff) {
                completed = false
                break
            }
        }
        if completed {
            writeStep(user, atMs: session.ms, step: Array(Onboarding.completeStep.utf8), screen: Array("home".utf8))
        }
        stats.recordOnboarding(reached: reached, completed: completed, signals: signals)
        return completed
    }

    private func bit(_ signal: Onboarding.Signal) -> UInt32 { 1 << UInt32(signal.rawValue) }

    private func makeSession(_ user: NewUser, atMs ms: Int64, random: inout SeededRandom) -> UXSession {
        let device: Device
        if user.ios {
            let roll = random.uniform()
            device = roll < Device.tabletShareOfIOS ? .iPad : roll < 0.55 ? .iPhone : .iPhoneMax
        } else {
            device = random.chance(0.7) ? .android : .androidSmall
        }
        let inputMode = random.pick(cumulative: Self.inputModeCumulative)
        let zh = inputMode == Onboarding.zhIndex
        let kind: UXSession.KeyboardKind
        let roll = random.uniform()
        if device.isTablet {
            kind = roll < Onboarding.tabletHardwareKeyboardShare / 2 ? .hardware
                : roll < Onboarding.tabletHardwareKeyboardShare ? .accessory
                : roll < Onboarding.tabletHardwareKeyboardShare + Onboarding.tabletUndockedShare ? .undocked : .docked
        } else {
            kind = roll < Onboarding.phoneHardwareKeyboardShare / 2 ? .hardware
                : roll < Onboarding.phoneHardwareKeyboardShare ? .accessory : .docked
        }
        let portrait = device.keyboardPortrait + (zh ? device.candidateBar + random.below(15) : 0)
        let landscape = device.isTablet ? 398 + (zh ? 54 : 0) : zh ? 250 + random.below(11) : 198 + random.below(12)
        let isLandscape = random.chance(device.isTablet ? Onboarding.tabletLandscapeShare : Onboarding.phoneLandscapeShare)
        return UXSession(user: user.number, device: device, inputMode: inputMode, keyboardKind: kind,
                         leftSide: random.chance(0.5), portraitHeight: portrait, landscapeHeight: landscape,
                         accessoryHeight: 44 + random.below(12), landscape: isLandscape, ms: ms)
    }

    // MARK: Telemetry sequences

    private func screenView(_ s: inout UXSession, screen: Int) {
        writeUX(&s, screen: screen, type: "screen_view", layout: true)
        s.ms += 300
    }

    private func event(_ s: inout UXSession, screen: Int, type: StaticString, feedback: Bool? = nil,
                       permission: StaticString? = nil, guidance: Bool? = nil, field: StaticString? = nil,
                       message: Bool? = nil, badState: Bool? = nil, random: inout SeededRandom) {
        s.ms += Int64(400 + random.below(3000))
        writeUX(&s, screen: screen, type: type, feedback: feedback, permission: permission, guidance: guidance,
                field: field, message: message, badState: badState)
    }

    private func keyboardRow(_ s: inout UXSession, screen: Int, phase: StaticString, frame: Frame, gap: Int) {
        s.ms += Int64(gap)
        writeUX(&s, screen: screen, type: "keyboard", phase: phase, keyboard: frame, layout: true)
        // Coverage is judged as docs/metrics.md ("Normalising the keyboard") says: a did_* end
        // frame, non-zero, inside the window.
        let isDid = phase.utf8Start[0] == UInt8(ascii: "d")
        let inside = frame.x >= 0 && frame.y >= 0 && frame.x + frame.w <= s.width && frame.y + frame.h <= s.height
        if isDid && !frame.isZero && inside && frame.intersects(s.layout(screen: screen).action) {
            s.covered = true
        }
    }

    private func showKeyboard(_ s: inout UXSession, screen: Int, random: inout SeededRandom) {
        s.ms += Int64(500 + random.below(2500))
        switch s.keyboardKind {
        case .docked:
            let frame = s.dockedFrame
            keyboardRow(&s, screen: screen, phase: "will_change_frame", frame: frame, gap: 0)
            keyboardRow(&s, screen: screen, phase: "will_show", frame: frame, gap: 2)
            keyboardRow(&s, screen: screen, phase: "did_change_frame", frame: frame, gap: 250)
            keyboardRow(&s, screen: screen, phase: "did_show", frame: frame, gap: 2)
        case .undocked:
            // Undocked keyboards send only change-frame notifications: a zero end frame while
            // dragging, then the same did_change_frame twice.
            keyboardRow(&s, screen: screen, phase: "will_change_frame", frame: .zero, gap: 0)
            keyboardRow(&s, screen: screen, phase: "did_change_frame", frame: s.floatingFrame, gap: 250)
            keyboardRow(&s, screen: screen, phase: "did_change_frame", frame: s.floatingFrame, gap: 1)
        case .accessory:
            keyboardRow(&s, screen: screen, phase: "will_show", frame: s.accessoryFrame, gap: 0)
            keyboardRow(&s, screen: screen, phase: "did_show", frame: s.accessoryFrame, gap: 200)
        case .hardware:
            return
        }
        s.keyboardUp = true
    }

    private func hideKeyboard(_ s: inout UXSession, screen: Int, random: inout SeededRandom) {
        guard s.keyboardUp else { return }
        s.ms += Int64(800 + random.below(4000))
        switch s.keyboardKind {
        case .docked:
            let frame = s.hiddenFrame
            keyboardRow(&s, screen: screen, phase: "will_change_frame", frame: frame, gap: 0)
            keyboardRow(&s, screen: screen, phase: "will_hide", frame: frame, gap: 2)
            keyboardRow(&s, screen: screen, phase: "did_change_frame", frame: frame, gap: 250)
            keyboardRow(&s, screen: screen, phase: "did_hide", frame: frame, gap: 2)
        case .undocked:
            keyboardRow(&s, screen: screen, phase: "will_change_frame", frame: .zero, gap: 0)
            keyboardRow(&s, screen: screen, phase: "did_change_frame", frame: s.hiddenFrame, gap: 250)
        case .accessory:
            let frame = Frame(x: 0, y: s.height, w: s.width, h: s.accessoryHeight)
            keyboardRow(&s, screen: screen, phase: "will_hide", frame: frame, gap: 0)
            keyboardRow(&s, screen: screen, phase: "did_hide", frame: frame, gap: 200)
        case .hardware:
            break
        }
        s.keyboardUp = false
    }

    /// A device rotation; with a docked keyboard up, iOS hides and re-shows it around the rotation
    /// although the user never dismissed it.
    private func rotate(_ s: inout UXSession, screen: Int, random: inout SeededRandom) {
        s.ms += Int64(1000 + random.below(4000))
        s.landscape.toggle()
        writeUX(&s, screen: screen, type: "rotation", phase: "will")
        let docked = s.keyboardUp && s.keyboardKind == .docked
        if docked {
            s.landscape.toggle()
            let old = s.hiddenFrame
            keyboardRow(&s, screen: screen, phase: "will_hide", frame: old, gap: 5)
            keyboardRow(&s, screen: screen, phase: "did_hide", frame: old, gap: 5)
            s.landscape.toggle()
        }
        s.ms += 350
        writeUX(&s, screen: screen, type: "rotation", phase: "did", layout: true)
        if docked {
            let frame = s.dockedFrame
            keyboardRow(&s, screen: screen, phase: "will_show", frame: frame, gap: 5)
            keyboardRow(&s, screen: screen, phase: "did_show", frame: frame, gap: 250)
            keyboardRow(&s, screen: screen, phase: "did_change_frame", frame: frame, gap: 2)
        } else if s.keyboardUp && s.keyboardKind == .undocked {
            keyboardRow(&s, screen: screen, phase: "did_change_frame", frame: s.floatingFrame, gap: 300)
        }
    }

    // MARK: Rows

    private func writeStep(_ user: NewUser, atMs ms: Int64, step: [UInt8], screen: [UInt8]) {
        steps.beginRow()
        steps.id("st", steps.nextSerial())
        steps.text(appID)
        steps.id("u", user.number)
        steps.timestamp(ms: ms - ms % 1000)
        steps.text(step)
        steps.text(screen)
        steps.endRow()
    }

    private func writeUX(_ s: inout UXSession, screen: Int, type: StaticString, phase: StaticString? = nil,
                         feedback: Bool? = nil, permission: StaticString? = nil, guidance: Bool? = nil,
                         field: StaticString? = nil, message: Bool? = nil, badState: Bool? = nil,
                         keyboard: Frame? = nil, layout: Bool = false) {
        let w = ux
        w.beginRow()
        w.id("x", ux.nextSerial())
        w.text(appID)
        w.id("u", s.user)
        w.id("s", s.user)
        w.timestamp(ms: s.ms, fraction: true)
        w.text(Self.screenNames[screen])
        w.text(type)
        if let phase { w.text(phase) } else { w.null() }
        w.text(s.landscape ? (s.leftSide ? "landscape_left" : "landscape_right") : "portrait")
        if let feedback { w.bool(feedback) } else { w.null() }
        if let permission { w.text(permission) } else { w.null() }
        if let guidance { w.bool(guidance) } else { w.null() }
        if let field { w.text(field) } else { w.null() }
        if let message { w.bool(message) } else { w.null() }
        if let badState { w.bool(badState) } else { w.null() }
        w.text(Self.inputModeNames[s.inputMode])
        if let keyboard {
            w.int(keyboard.x); w.int(keyboard.y); w.int(keyboard.w); w.int(keyboard.h)
        } else {
            w.null(); w.null(); w.null(); w.null()
        }
        if layout {
            let (focus, action, caret) = s.layout(screen: screen)
            if let focus {
                w.int(focus.x); w.int(focus.y); w.int(focus.w); w.int(focus.h)
            } else {
                w.null(); w.null(); w.null(); w.null()
            }
            w.int(action.x); w.int(action.y); w.int(action.w); w.int(action.h)
            if let caret { w.int(caret) } else { w.null() }
        } else {
            for _ in 0..<9 { w.null() }
        }
        w.int(s.width)
        w.int(s.height)
        w.endRow()
    }
}

// Property setters and getters: a value is read from its GValue by the table's type and
// recorded under the settings lock; the streaming thread picks it up on its next frame.
// Layer properties go through their table entry's key path; element properties are the
// cases of `ElementSetting`. Files named by properties are loaded elsewhere
// (WatermarkImpl+Loading.swift).

import CGStreamer
import WatermarkModel

extension WatermarkImpl {
    /// Sets property `id` (1-based index into `WatermarkProperties.all`); false for an
    /// id that is not one.
    func setProperty(_ id: UInt32, _ gvalue: UnsafePointer<GValue>) -> Bool {
        guard let property = WatermarkProperties.definition(id: id) else { return false }
        let value = PropertyValue(gvalue, as: property.type)
        switch property.role {
        case .layer:
            // Image and text files are loaded off the streaming thread; the rest is a value.
            if property.name == WatermarkProperties.image.name, case .string(let path) = value {
                setImage(path)
            } else if property.name == WatermarkProperties.textFile.name, case .string(let path) = value {
                setTextFile(path)
            } else {
                settings.withLock { $0.shorthand.set(property, value) }
            }
        case .element(let setting):
            setElement(setting, value)
        }
        return true
    }

    /// An element setting; a GValue of another type is ignored (GObject checks types first).
    private func setElement(_ setting: ElementSetting, _ value: PropertyValue) {
        switch (setting, value) {
        case (.config, .string(let path)): setConfig(path)
        case (.configData, .string(let text)): setConfigData(text)
        case (.overlayMode, .choice(let mode)): settings.withLock { $0.blendOnly = mode == OverlayMode.blend.rawValue }
        case (.followOrientation, .bool(let b)): settings.withLock { $0.followOrientation = b }
        case (.renderAhead, .bool(let b)): settings.withLock { $0.renderAhead = b }
        case (.variables, .string(let text)): setVariables(text)
        case (.dataOffset, .double(let d)): settings.withLock { $0.dataOffset = d }
        case (.dataFile, .string(let text)), (.dataTimeColumn, .string(let text)), (.dataStep, .string(let text)):
            setData(setting, (text?.isEmpty ?? true) ? nil : text)
        case (.mask, .string(let text)): setMask(text)
        case (.maskFill, .choice(let i)): settings.withLock { $0.mask.fill = MaskFill(rawValue: i) ?? .solid }
        // The follow layer of the roi-… properties fills with the mask's colour, cell and radius.
        case (.maskColor, .color(let c)): settings.withLock { ($0.mask.color, $0.roi.fillColor) = (c, c) }
        case (.maskCell, .double(let d)): settings.withLock { ($0.mask.cell, $0.roi.cell) = (d, d) }
        case (.maskRadius, .double(let d)): settings.withLock { ($0.mask.radius, $0.roi.radius) = (d, d) }
        case (.roiTypes, .string(let text)): setRoiTypes(text)
        case (.roiFill, .choice(let i)): settings.withLock { $0.roi.fill = RoiFill(rawValue: i) ?? .none }
        case (.roiBoxColor, .color(let c)): settings.withLock { $0.roi.boxColor = c }
        case (.roiBoxWidth, .double(let d)): settings.withLock { $0.roi.boxWidth = d }
        case (.roiLabel, .string(let text)):
            let label = (text?.isEmpty ?? true) ? nil : text.map(RoiLabel.init)
            settings.withLock { $0.roi.label = label }
        case (.roiMinConfidence, .double(let d)): settings.withLock { $0.roi.minConfidence = d }
        case (.roiGrow, .double(let d)): settings.withLock { $0.roi.grow = d }
        case (.forensicId, .string(let text)):
            settings.withLock {
                $0.forensic.idText = (text?.isEmpty ?? true) ? nil : text
                $0.forensic.update()
            }
        case (.forensicKey, .string(let text)):
            settings.withLock {
                $0.forensic.key = text
                $0.forensic.update()
            }
        case (.forensicStrength, .double(let d)): settings.withLock { $0.forensic.strength = d }
        case (.subtitleFile, .string(let text)): setSubtitleFile(text)
        case (.subtitleOffset, .double(let d)): settings.withLock { $0.subtitles.offset = d }
        default:
            // Read-only (render-count), or a value of another type.
            break
        }
    }

    /// All variables at once (parsed here, off the streaming thread); a text that is not a
    /// structure keeps the old ones and posts a warning naming it.
    func setVariables(_ text: String?) {
        guard let text, !text.isEmpty else {
            settings.withLock {
                $0.propertyVariables = Variables()
                $0.variablesText = nil
            }
            return
        }
        guard let variables = Variables(structure: text) else {
            post(
                "variables: \"\(text)\" is not a GstStructure (name, field=(type)value, …); keeping the previous values",
                code: GST_RESOURCE_ERROR_SETTINGS, fatal: false, debug: "variables property")
            return
        }
        settings.withLock {
            $0.propertyVariables = variables
            $0.variablesText = text
        }
    }

    /// The `mask` regions, parsed here (off the streaming thread). A malformed text before
    /// start is kept for start to report as an element error; while running it is a warning
    /// naming the fault's position, and the masks in use stay.
    func setMask(_ text: String?) {
        let text = (text?.isEmpty ?? true) ? nil : text
        switch MaskRegion.parseList(text ?? "") {
        case .success(let regions):
            settings.withLock {
                $0.mask.regions = regions
                $0.maskText = text
                $0.maskError = nil
            }
        case .failure(let fault):
            let message = "mask \"\(text ?? "")\": \(fault)"
            if running.load(ordering: .acquiring) {
                post(
                    message + "; keeping the previous masks", code: GST_RESOURCE_ERROR_SETTINGS, fatal: false,
                    debug: "mask property")
            } else {
                settings.withLock {
                    $0.mask.regions = []
                    $0.maskText = text
                    $0.maskError = message
                }
            }
        }
    }

    /// The `roi-types` names (comma-separated, blanks dropped) and their quarks,
    /// which the streaming thread compares with each meta's type.
    func setRoiTypes(_ text: String?) {
        let names = text.map {
            $0.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
        }
        let types = (names?.isEmpty ?? true) ? nil : names
        let quarks = types?.map { g_quark_from_string($0) }
        settings.withLock {
            $0.roi.types = types
            $0.roiTypeQuarks = quarks
            $0.roiTypesText = types == nil ? nil : text
        }
    }

    /// Writes property `id`'s current value into `gvalue`; false for an unknown id.
    func getProperty(_ id: UInt32, _ gvalue: UnsafeMutablePointer<GValue>) -> Bool {
        guard let property = WatermarkProperties.definition(id: id) else { return false }
        let s = settings.withLock { $0 }
        let value: PropertyValue? =
            switch property.role {
            case .layer(let field): field.get(s.shorthand)
            case .element(.config): .string(s.configPath)
            case .element(.configData): .string(s.configData)
            case .element(.overlayMode): .choice(s.blendOnly ? OverlayMode.blend.rawValue : OverlayMode.auto.rawValue)
            case .element(.followOrientation): .bool(s.followOrientation)
            case .element(.renderAhead): .bool(s.renderAhead)
            case .element(.renderCount): .counter(renderCount.load(ordering: .relaxed))
            case .element(.variables): .string(s.variablesText)
            case .element(.dataFile): .string(s.dataSpec?.file)
            case .element(.dataOffset): .double(s.dataOffset)
            case .element(.dataTimeColumn): .string(s.dataTimeColumn)
            case .element(.dataStep): .string(s.dataStep)
            case .element(.mask): .string(s.maskText)
            case .element(.maskFill): .choice(s.mask.fill.rawValue)
            case .element(.maskColor): .color(s.mask.color)
            case .element(.maskCell): .double(s.mask.cell)
            case .element(.maskRadius): .double(s.mask.radius)
            case .element(.roiTypes): .string(s.roiTypesText)
            case .element(.roiFill): .choice(s.roi.fill.rawValue)
            case .element(.roiBoxColor): .color(s.roi.boxColor)
            case .element(.roiBoxWidth): .double(s.roi.boxWidth)
            case .element(.roiLabel): .string(s.roi.label?.source)
            case .element(.roiMinConfidence): .double(s.roi.minConfidence)
            case .element(.roiGrow): .double(s.roi.grow)
            case .element(.forensicId): .string(s.forensic.idText)
            // The key is never read back.
            case .element(.forensicKey): .string(nil)
            case .element(.forensicStrength): .double(s.forensic.strength)
            case .element(.subtitleFile): .string(s.subtitles.path)
            case .element(.subtitleOffset): .double(s.subtitles.offset)
            }
        value?.store(in: gvalue)
        return true
    }
}

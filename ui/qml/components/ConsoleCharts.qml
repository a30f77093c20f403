import QtQuick
import QtQuick.Layouts
import FreeToken.Ui

// The Console's live charts over the chosen window, drawn by TimeChart / HeatmapChart from the ConsoleModel's
// history. GPU-only charts say why they are empty on the CPU engine, this PC's or (`remote`) a server's.
ColumnLayout {
    id: root
    property ConsoleModel vm
    property int columns: 2
    property bool remote: false  // the charts of a remote server's engine (its /v1/stats), not this PC's
    spacing: Theme.s4
    readonly property string noGpu: remote ? qsTr("The server has no GPU: it runs its model on its CPU, so it has no VRAM or PCIe traffic to chart.")
                                           : qsTr("No GPU: the CPU engine has no VRAM or PCIe traffic.")
    readonly property string noCache: vm && vm.gpu
        ? (remote ? qsTr("No expert cache on the server: every expert is resident in its VRAM.")
                  : qsTr("No expert cache: every expert is resident in VRAM."))
        : (remote ? qsTr("No expert cache on the server: its CPU engine computes every expert from its RAM.")
                  : qsTr("No expert cache: the CPU engine computes every expert from host RAM."))
    readonly property var vramColors: [Theme.accent, Theme.success, Theme.warning, "#b48cff", Theme.textMuted, Theme.track]
    readonly property var vramLabels: [qsTr("Weights"), qsTr("Experts"), qsTr("KV"), qsTr("Scratch"), qsTr("Other"), qsTr("Free")]
    function legend(labels, colors) {
        const out = []
        for (let i = 0; i < labels.length; ++i) out.push({ label: labels[i], color: colors[i] })
        return out
    }
    function num(v, d) { return v === undefined || isNaN(v) ? "—" : Theme.fixed(v, d) }
    readonly property var last: vm ? vm.latest : ({})

    GridLayout {
        Layout.fillWidth: true
        columns: root.columns
        columnSpacing: Theme.s4
        rowSpacing: Theme.s4

        ChartCard {
            objectName: "chartVram"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("VRAM by category")
            value: root.vm && root.vm.gpu ? Theme.bytes(root.vm.vramBudget) : "—"
            legend: root.legend(root.vramLabels, root.vramColors)
            emptyText: root.noGpu
            chart: vramChart
            TimeChart {
                id: vramChart
                objectName: "vramChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["vramWeights", "vramExperts", "vramKv", "vramScratch", "vramOther", "vramFree"]
                labels: root.vramLabels
                colors: root.vramColors
                stacked: true
                scale: 1 / 1073741824
                unit: "GiB"
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
        ChartCard {
            objectName: "chartPcie"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("PCIe GB/s")
            value: root.num(root.last.pcieH2d, 1) + " / " + root.num(root.last.pcieD2h, 1)
            legend: root.legend([qsTr("H2D"), qsTr("D2H"), qsTr("Expert fetches"), qsTr("Prefill streaming")],
                                [Theme.accent, Theme.warning, Theme.success, "#b48cff"])
            emptyText: root.noGpu
            chart: pcieChart
            TimeChart {
                id: pcieChart
                objectName: "pcieChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["pcieH2d", "pcieD2h", "pcieFetch", "pciePrefill"]
                labels: [qsTr("H2D"), qsTr("D2H"), qsTr("Expert fetches"), qsTr("Prefill streaming")]
                colors: [Theme.accent, Theme.warning, Theme.success, "#b48cff"]
                unit: "GB/s"
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
        ChartCard {
            objectName: "chartHitRate"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("Expert cache hit rate")
            value: root.last.hitRate === undefined || isNaN(root.last.hitRate) ? "—" : Theme.fixed(100 * root.last.hitRate, 1) + " %"
            emptyText: root.noCache
            chart: hitChart
            TimeChart {
                id: hitChart
                objectName: "hitRateChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["hitRate"]
                labels: [qsTr("Hit rate")]
                colors: [Theme.success]
                scale: 100
                fixedMax: 100
                unit: "%"
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
        ChartCard {
            objectName: "chartMisses"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("Misses per token")
            value: root.num(root.last.fetchedPerToken, 1) + " / " + root.num(root.last.cpuPerToken, 1)
            legend: root.legend([qsTr("Fetched over PCIe"), qsTr("Computed on the CPU")], [Theme.accent, Theme.warning])
            caption: root.vm && root.vm.cacheActive ? qsTr("q* fraction in use: %1").arg(root.num(root.last.fraction, 2)) : ""
            emptyText: root.noCache
            chart: missChart
            TimeChart {
                id: missChart
                objectName: "missChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["fetchedPerToken", "cpuPerToken"]
                labels: [qsTr("Fetched"), qsTr("CPU")]
                colors: [Theme.accent, Theme.warning]
                stacked: true
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
        ChartCard {
            objectName: "chartDecode"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("Decode tok/s")
            value: root.num(root.last.decodeTokS, 1)
            emptyText: qsTr("Waiting for the first sample.")
            chart: decodeChart
            TimeChart {
                id: decodeChart
                objectName: "decodeChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["decodeTokS"]
                labels: [qsTr("Decode")]
                colors: [Theme.accent]
                unit: qsTr("tok/s")
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
        ChartCard {
            objectName: "chartPrefill"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("Prefill tok/s")
            value: root.num(root.last.prefillTokS, 0)
            emptyText: qsTr("Waiting for the first sample.")
            chart: prefillChart
            TimeChart {
                id: prefillChart
                objectName: "prefillChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["prefillTokS"]
                labels: [qsTr("Prefill")]
                colors: ["#b48cff"]
                unit: qsTr("tok/s")
                decimals: 0
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
        ChartCard {
            objectName: "chartCpu"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("CPU expert GB/s")
            value: root.num(root.last.cpuExpertGbps, 1)
            emptyText: qsTr("Waiting for the first sample.")
            caption: root.vm && root.vm.loaded && !root.vm.gpu
                     ? qsTr("Expert weights the CPU engine reads from RAM per second (it computes every expert); 0 while idle.")
                     : qsTr("Expert weights the CPU reads per second for the misses it computes; 0 while idle.")
            chart: cpuChart
            TimeChart {
                id: cpuChart
                objectName: "cpuExpertChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["cpuExpertGbps"]
                labels: [qsTr("CPU experts")]
                colors: [Theme.warning]
                unit: "GB/s"
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
        ChartCard {
            objectName: "chartKv"
            Layout.fillWidth: true
            Layout.preferredWidth: 1
            title: qsTr("KV cache positions")
            value: root.num(root.last.kvUsedTokens, 0) + " / " + root.num(root.last.kvTotalTokens, 0)
            legend: root.legend([qsTr("In use"), qsTr("Allocated")], [Theme.accent, Theme.textMuted])
            emptyText: qsTr("Waiting for the first sample.")
            chart: kvChart
            TimeChart {
                id: kvChart
                objectName: "kvChart"
                anchors.fill: parent
                visible: hasData
                model: root.vm
                series: ["kvUsedTokens", "kvTotalTokens"]
                labels: [qsTr("In use"), qsTr("Allocated")]
                colors: [Theme.accent, Theme.textMuted]
                decimals: 0
                gridColor: Theme.border
                textColor: Theme.textFaint
            }
        }
    }

    ChartCard {
        objectName: "chartHeatmap"
        Layout.fillWidth: true
        title: qsTr("Hit rate per layer")
        value: heatmap.layers > 0 ? qsTr("%1 layers").arg(heatmap.layers) : ""
        legend: root.legend([qsTr("Cold (misses)"), qsTr("Hot (hits)")], [Theme.danger, Theme.success])
        emptyText: root.noCache
        chart: heatmap
        chartHeight: Math.max(80, Math.min(240, heatmap.layers * 5))
        HeatmapChart {
            id: heatmap
            objectName: "heatmapChart"
            anchors.fill: parent
            visible: hasData
            model: root.vm
            coldColor: Theme.danger
            hotColor: Theme.success
            emptyColor: Theme.surfaceAlt
            layerLabel: qsTr("Layer %1")
        }
    }
}

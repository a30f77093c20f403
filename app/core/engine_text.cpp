#include "engine_text.h"

namespace ft {

QString EngineText::text(const Message& m, const QString& english) {
    const auto a = [&](std::size_t i) { return i < m.args.size() ? QString::fromStdString(m.args[i]) : QString(); };
    const QString& k = QString::fromStdString(m.key);
    // A damaged or foreign model file (gguf_reader).
    if (k == "file_damaged")
        return tr("%1 is damaged or incomplete (%2): download or convert it again").arg(a(0), a(1));
    if (k == "not_gguf")
        return tr("%1 is not a GGUF model file (it starts with \"%2\"): choose a .gguf file or a Hugging Face folder of safetensors").arg(a(0), a(1));
    // A model file that is not there (moved or deleted since it was added: MappedFile::open).
    if (k == "file_missing") return tr("%1 is not there any more: it was moved or deleted. Add it again from its new place.").arg(a(0));
    // A request whose prompt (a conversation grown past the context) does not fit (Engine::submit).
    if (k == "prompt_too_long")
        return tr("The prompt has %1 tokens; the model's context holds %2. Start a new chat or shorten the message, or load the model with a larger context.").arg(a(0), a(1));
    // A live cache rebuild the engine refused (RebuildResult::reason_key).
    if (k == "no_model") return tr("No model is loaded.");
    if (k == "kv_zero") return tr("A KV cache of 0 positions cannot serve.");
    if (k == "kv_below_context") return tr("%1 KV positions are less than one %2-token context.").arg(a(0), a(1));
    if (k == "kv_above_plan") return tr("%1 KV positions are more than the %2 this plan allows.").arg(a(0), a(1));
    if (k == "kv_below_running") return tr("%1 KV positions are fewer than the %2 the running requests hold.").arg(a(0), a(1));
    if (k == "cpu_no_expert_cache") return tr("The CPU engine has no expert cache to resize.");
    if (k == "backend_fixed_cache") return tr("The %1 backend's expert cache cannot be resized.").arg(a(0));
    if (k == "slots_below_layer") return tr("%1 expert slots are fewer than one layer's %2 experts.").arg(a(0), a(1));
    if (k == "slots_above_total") return tr("%1 expert slots are more than the model's %2 experts.").arg(a(0), a(1));
    if (k == "over_budget")
        return tr("%1 expert slots (%2) and %3 KV positions (%4) need %5 with the rest of the plan; the budget is %6.")
            .arg(a(0), a(1), a(2), a(3), a(4), a(5));
    if (k == "rebuild_failed") return tr("The rebuild failed and was undone: %1").arg(a(0));
    // Why there is no GPU (gpu_unavailable_message()).
    if (k == "no_cuda_build") return tr("this build has no CUDA support");
    if (k == "no_gpu") return tr("no NVIDIA GPU found");
    if (k == "no_driver") return tr("no NVIDIA driver found (install the NVIDIA driver to use the GPU)");
    if (k == "driver_too_old")
        return tr("the NVIDIA driver supports CUDA %1, older than this build's CUDA %2 (update the NVIDIA driver to use the GPU)").arg(a(0), a(1));
    if (k == "cuda_unusable") return tr("CUDA is not usable: %1").arg(a(0));
    // The device a model runs on (ModelInfo::device_key).
    if (k == "device_cpu") return tr("CPU (%1 threads)").arg(a(0));
    return english;
}

QString EngineText::error(const Error& e) {
    QString english = QString::fromStdString(e.message());
    if (!e.hint().empty()) english += QStringLiteral(" — ") + QString::fromStdString(e.hint());
    return text(e.key(), english);
}

}  // namespace ft

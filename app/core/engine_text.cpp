#include "engine_text.h"

#include <QLocale>
#include <QMetaEnum>
#include <QNetworkReply>

namespace ft {

namespace {

// A byte count from the engine (decimal digits) in the app's locale ("1.0 MiB"; the decimal sign is the locale's).
QString bytes(const QString& digits) { return QLocale().formattedDataSize(digits.toLongLong(), 1, QLocale::DataSizeIecFormat); }

}  // namespace

QString EngineText::text(const Message& m, const QString& english) {
    const auto a = [&](std::size_t i) { return i < m.args.size() ? QString::fromStdString(m.args[i]) : QString(); };
    const QString& k = QString::fromStdString(m.key);
    // A damaged or foreign model file (gguf_reader).
    if (k == "file_damaged")
        return tr("%1 is damaged or incomplete (%2): download or convert it again").arg(a(0), a(1));
    // A file that ends early: a download or a conversion cut short (gguf_reader: its size, what its header needs).
    if (k == "file_truncated")
        return tr("%1 is incomplete: it has %2, but its contents need at least %3. The download or conversion stopped early: download or convert it again.")
            .arg(a(0), bytes(a(1)), bytes(a(2)));
    if (k == "file_empty") return tr("%1 is empty: download or convert it again.").arg(a(0));
    if (k == "gguf_big_endian") return tr("%1 is a big-endian GGUF file; this PC reads little-endian ones. Convert the model again for this PC.").arg(a(0));
    if (k == "gguf_version_old") return tr("%1 is a GGUF file of version 1, which is no longer read. Convert the model again with a current llama.cpp.").arg(a(0));
    if (k == "gguf_version_unknown")
        return tr("%1 has GGUF version %2, which this version of FreeToken does not know (versions 2 and 3 are read). The file is newer than this program, or damaged.").arg(a(0), a(1));
    if (k == "tensor_type_unknown")
        return tr("%1: the tensor %2 uses a quantization this version of FreeToken does not know (type %3). Use another quantization of the model.").arg(a(0), a(1), a(2));
    // A model the engine cannot run (gguf_desc, hf_config, build_graph): its architecture; a tensor's type (Weights).
    if (k == "arch_unsupported")
        return tr("%1: the architecture \"%2\" does not run in this version of FreeToken. Supported: %3.").arg(a(0), a(1), a(2));
    if (k == "arch_no_forward")
        return tr("The architecture %1 is recognised, but it does not run in this version of FreeToken yet. Supported: %2.").arg(a(0), a(1));
    if (k == "type_unsupported")
        return tr("%1: the tensor %2 is stored as %3, which FreeToken cannot compute with yet. Use another quantization or a GGUF file of the model.")
            .arg(a(0), a(1), a(2));
    // A quantized Hugging Face checkpoint (FP8 / NVFP4) whose scales do not fit its weights, or a layout the engine
    // does not read (format/hf_quant.h lists the keys and their arguments).
    if (k == "hf_quant_scale_missing")
        return tr("%1: the quantized tensor %2 has no scale tensor %3. The checkpoint is incomplete: download it again.").arg(a(0), a(1), a(2));
    if (k == "hf_quant_scale_shape")
        return tr("%1: the scale tensor %2 has shape %3, but its weight needs %4. The checkpoint is damaged: download it again.").arg(a(0), a(1), a(2), a(3));
    if (k == "hf_quant_scale_type")
        return tr("%1: the scale tensor %2 is %3; FreeToken expects %4. The checkpoint is damaged: download it again.").arg(a(0), a(1), a(2), a(3));
    if (k == "hf_quant_not_matrix")
        return tr("%1: the quantized tensor %2 has shape %3, where a matrix was expected. The checkpoint is damaged: download it again.").arg(a(0), a(1), a(2));
    if (k == "hf_quant_row_length")
        return tr("%1: the %3 tensor %2 has rows of %4 values; FreeToken keeps %3 rows in blocks of %5 values, so it cannot read this tensor. Use the model's BF16 release or a GGUF file.").arg(a(0), a(1), a(2), a(3), a(4));
    if (k == "hf_quant_fp8_block")
        return tr("%1: the FP8 tensor %2 has scale blocks %3 columns wide; FreeToken reads blocks whose width is a multiple of 32. Use the model's BF16 release or a GGUF file.").arg(a(0), a(1), a(2));
    if (k == "hf_quant_layout")
        return tr("%1: the tensor %2 is stored as %3, which FreeToken cannot read yet. Use the model's NVFP4, FP8 or BF16 release, or a GGUF file.").arg(a(0), a(1), a(2));
    if (k == "hf_quant_block_size")
        return tr("%1: quantization_config.weight_block_size must be two positive integers, not %2. The config.json is damaged: download it again.").arg(a(0), a(1));
    if (k == "hf_quant_config")
        return tr("%1: quantization_config is not an object. The config.json is damaged: download it again.").arg(a(0));
    // A config.json whose rotated part of each head is not what transformers rotates (MiniMax-M2's read_hf).
    if (k == "hf_rotary_dim")
        return tr("%1: config.json says rotary_dim %2, but partial_rotary_factor %3 of the head size %4 rotates %5 dimensions. The config.json is damaged or was edited: download it again.")
            .arg(a(0), a(1), a(2), a(3), a(4));
    if (k == "hf_rotary_odd")
        return tr("%1: partial_rotary_factor rotates %2 dimensions of each head; it must be an even number above 0. The config.json is damaged or was edited: download it again.")
            .arg(a(0), a(1));
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
    // The VRAM planner (plan_memory) and the fit predictor on the Models page (FitPrediction::reason_key).
    if (k == "vram_too_small")
        return tr("%1 of video memory is too little for this model with the %2 backend: it needs at least %3. It runs on the CPU instead; close programs that use the GPU to free video memory.")
            .arg(a(0), a(1), a(2));
    if (k == "vram_kv_below_context")
        return tr("The video memory left for the KV cache holds %1 positions, less than one %2-token context; it needs at least %3 of video memory.")
            .arg(a(0), a(1), a(2));
    if (k == "vram_kv_over") return tr("%1 KV positions need %2; the video memory budget leaves %3 for them.").arg(a(0), a(1), a(2));
    if (k == "vram_slots_over") return tr("%1 expert slots need %2; the video memory budget leaves %3 for them.").arg(a(0), a(1), a(2));
    if (k == "fit_no_gpu") return tr("no usable GPU: it runs on the CPU");
    if (k == "fit_no_ram") return tr("The weights need about %1 of RAM; this PC has %2.").arg(a(0), a(1));
    // Why there is no GPU (gpu_unavailable_message()).
    if (k == "no_cuda_build") return tr("this build has no CUDA support");
    if (k == "no_gpu") return tr("no NVIDIA GPU found");
    if (k == "no_driver") return tr("no NVIDIA driver found (install the NVIDIA driver to use the GPU)");
    if (k == "driver_too_old")
        return tr("the NVIDIA driver supports CUDA %1, older than this build's CUDA %2 (update the NVIDIA driver to use the GPU)").arg(a(0), a(1));
    if (k == "cuda_unusable") return tr("CUDA is not usable: %1").arg(a(0));
    // A load on the GPU (--device cuda) that cannot use it: why, itself a key and its arguments (model_loader).
    if (k == "gpu_unusable") {
        const Message why{a(0).toStdString(), std::vector<std::string>(m.args.size() > 1 ? m.args.begin() + 1 : m.args.end(), m.args.end())};
        return tr("No usable GPU: %1. Load the model on the CPU instead.").arg(text(why, a(0)));
    }
    // CUDA and cuBLAS failures (gpu_runtime's check()): %1 is the call that failed, as CUDA names it.
    if (k == "cuda_out_of_memory")
        return tr("The GPU ran out of video memory (%1). Use a smaller context, fewer parallel requests or a smaller model, or close programs that use the GPU.")
            .arg(a(0));
    if (k == "gpu_too_old")
        return tr("%1 (compute capability %2) is not among the GPUs this build of FreeToken was made for (%3 failed). Load the model on the CPU, or use a build for this GPU.")
            .arg(a(0), a(1), a(2));
    if (k == "cuda_failed") return tr("The GPU reported an error in %1: %2 (%3).").arg(a(0), a(1), a(2));
    if (k == "cublas_failed")
        return tr("cuBLAS, the GPU's matrix library, failed in %1 (status %2). Update the NVIDIA driver, or load the model on the CPU.").arg(a(0), a(1));
    // A request's sampling setting out of its range (validate_sampling): the range as "[0, 100]", "(0, 1]" or ">= 0".
    if (k == "sampling_range") {
        if (a(1).startsWith('[') || a(1).startsWith('('))
            return tr("The sampling setting %1 must lie in %2.").arg(a(0), a(1));
        return tr("The sampling setting %1 must be %2.").arg(a(0), QString(a(1)).replace(QLatin1String(">="), QString(QChar(0x2265))));
    }
    // A FreeToken server's refusals (ft serve's error JSON carries them as "ft_message"; ApiError::message_key).
    if (k == "field_range") return tr("The request's %1 is %3; the server takes values in %2.").arg(a(0), a(1), a(2));
    if (k == "server_unknown_model") return tr("The server has no model named “%1”; it serves “%2”.").arg(a(0), a(1));
    if (k == "server_prompt_too_long")
        return tr("The prompt has %1 tokens; the server's model holds %2. Start a new chat or shorten the message, or restart the server with a larger context.")
            .arg(a(0), a(1));
    if (k == "server_bad_key") return tr("the API key is missing or wrong");
    if (k == "server_busy")
        return tr("The server is busy: %1 requests are already running or waiting. Try again shortly.").arg(a(0));
    if (k == "server_stopping") return tr("The server is shutting down.");
    if (k == "server_body_too_large") return tr("The request is larger than the server accepts.");
    // The device a model runs on (ModelInfo::device_key).
    if (k == "device_cpu") return tr("CPU (%1 threads)").arg(a(0));
    return english;
}

QString EngineText::networkReason(const QString& key, const QString& english) {
    if (key == "HostNotFoundError") return tr("the server's name was not found");
    if (key == "ConnectionRefusedError") return tr("the server refused the connection");
    if (key == "RemoteHostClosedError") return tr("the server closed the connection");
    if (key == "TimeoutError" || key == "OperationCanceledError") return tr("the server did not answer in time");
    if (key == "SslHandshakeFailedError") return tr("the secure connection could not be set up");
    if (key == "NetworkSessionFailedError" || key == "TemporaryNetworkFailureError") return tr("the network is down");
    if (key == "ProxyConnectionRefusedError" || key == "ProxyNotFoundError" || key == "ProxyTimeoutError")
        return tr("the proxy cannot be reached");
    return english;  // a rarer failure: Qt's own words
}

QString EngineText::networkErrorKey(const QNetworkReply* reply) {
    const QMetaEnum e = QMetaEnum::fromType<QNetworkReply::NetworkError>();
    const char* key = e.valueToKey(int(reply->error()));
    return key ? QString::fromLatin1(key) : QString::number(int(reply->error()));
}

QString EngineText::error(const Error& e) {
    QString english = QString::fromStdString(e.message());
    if (!e.hint().empty()) english += QStringLiteral(" — ") + QString::fromStdString(e.hint());
    return text(e.key(), english);
}

}  // namespace ft

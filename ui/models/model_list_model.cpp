#include "model_list_model.h"

#include "engine_text.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QEvent>
#include <QDir>
#include <QFileInfo>

#include "ft/error.h"
#include "ft/paths.h"
#include "ft/plan.h"
#include "ft/utf8.h"

namespace ft::ui {

namespace {
QString describe(const ft::Error& e) {
    QString s = QString::fromStdString(e.message());
    if (!e.hint().empty()) s += QStringLiteral(" — ") + QString::fromStdString(e.hint());
    return s;
}

}  // namespace

ModelListModel::ModelListModel(QObject* parent) : QAbstractListModel(parent) {
    if (QCoreApplication::instance()) QCoreApplication::instance()->installEventFilter(this);
    m_machine = ft::this_machine();
    try {
        m_library = std::make_unique<ModelLibrary>();
        for (const ModelRecord& r : m_library->models()) m_rows.append(makeRow(r));
    } catch (const ft::Error& e) {
        m_lastError = describe(e);
    }
}

ModelListModel::Row ModelListModel::makeRow(const ModelRecord& r) const {
    Row row{r, {}};
    if (!r.facts.runnable) return row;   // the row says why instead
    try {
        row.fit = ft::predict_fit(ft::path_from_utf8(r.path.toStdString()), m_machine);
    } catch (const ft::Error& e) {
        row.fit.reason = e.message();
    }
    if (row.fit.verdict == "unsupported") row.fit.verdict.clear();
    return row;
}

ModelListModel::~ModelListModel() = default;

int ModelListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

QVariant ModelListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const ModelRecord& r = m_rows[index.row()].record;
    const FitPrediction& fit = m_rows[index.row()].fit;
    const ModelFacts& f = r.facts;
    switch (role) {
    case IdRole: return r.id;
    case PathRole: return r.path;
    case Qt::DisplayRole:
    case NameRole: return r.displayName;
    case FormatRole: return r.format;
    case SizeRole: return static_cast<double>(r.sizeBytes);
    case AddedRole: return r.addedAt.toLocalTime();
    case OriginRole: return r.origin;
    case ReadableRole: return f.readable;
    case ReadErrorRole: return EngineText::text(f.error_key, QString::fromStdString(f.error));  // the app's language
    case ArchitectureRole: return QString::fromStdString(f.architecture);
    case RunnableRole: return f.runnable;
    case SupportNoteRole: return EngineText::text(f.support_key, QString::fromStdString(f.support_note));  // the app's language
    case QuantRole: return QString::fromStdString(f.quant);
    case TotalParamsRole: return static_cast<double>(f.total_params);
    case ActiveParamsRole: return static_cast<double>(f.active_params);
    case PartsRole: return static_cast<int>(f.parts.size());
    case FitVerdictRole: return QString::fromStdString(fit.verdict);   // empty when it cannot run
    case FitReasonRole: return EngineText::text(fit.reason_key, QString::fromStdString(fit.reason));  // the app's language
    case TokSLowRole: return fit.decode_tok_s_low;
    case TokSHighRole: return fit.decode_tok_s_high;
    default: return {};
    }
}

QHash<int, QByteArray> ModelListModel::roleNames() const {
    return {{IdRole, "modelId"},           {PathRole, "path"},
            {NameRole, "name"},              {FormatRole, "format"},
            {SizeRole, "sizeBytes"},         {AddedRole, "addedAt"},
            {OriginRole, "origin"},          {ReadableRole, "readable"},
            {ReadErrorRole, "readError"},    {ArchitectureRole, "architecture"},
            {RunnableRole, "runnable"},      {SupportNoteRole, "supportNote"},
            {QuantRole, "quant"},            {TotalParamsRole, "totalParams"},
            {ActiveParamsRole, "activeParams"}, {PartsRole, "parts"},
            {FitVerdictRole, "fitVerdict"},  {FitReasonRole, "fitReason"},
            {TokSLowRole, "tokSLow"},        {TokSHighRole, "tokSHigh"}};
}

QString ModelListModel::databasePath() const { return m_library ? m_library->databasePath() : QString(); }

QString ModelListModel::modelsDir() const {
    try {
        return QString::fromStdString(ft::path_to_utf8(ft::models_dir()));
    } catch (const ft::Error& e) {
        return describe(e);
    }
}

bool ModelListModel::addUrl(const QUrl& url) { return addPath(url.isLocalFile() ? url.toLocalFile() : url.toString()); }

bool ModelListModel::addPath(const QString& path, const QString& origin) {
    if (!m_library) return false;
    try {
        const ModelRecord r = m_library->add(path, origin);
        beginInsertRows({}, 0, 0);
        m_rows.prepend(makeRow(r));
        endInsertRows();
        emit countChanged();
        setError({});
        return true;
    } catch (const ft::Error& e) {
        setError(describe(e));
        return false;
    }
}

bool ModelListModel::remove(qint64 id) { return removeModel(id, false); }

bool ModelListModel::removeModel(qint64 id, bool deleteFiles) {
    if (!m_library) return false;
    try {
        if (!m_library->remove(id, deleteFiles)) return false;
    } catch (const ft::Error& e) {
        setError(describe(e));
        return false;
    }
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].record.id != id) continue;
        beginRemoveRows({}, i, i);
        m_rows.removeAt(i);
        endRemoveRows();
        emit countChanged();
        break;
    }
    return true;
}

void ModelListModel::reload() {
    if (!m_library) return;
    try {
        beginResetModel();
        m_rows.clear();
        for (const ModelRecord& r : m_library->models()) m_rows.append(makeRow(r));
        endResetModel();
        emit countChanged();
    } catch (const ft::Error& e) {
        endResetModel();
        setError(describe(e));
    }
}

int ModelListModel::scanModelsFolder(const QString& folder) {
    if (!m_library) return 0;
    ScanResult r;
    try {
        r = m_library->scan(folder);
    } catch (const ft::Error& e) {
        setError(describe(e));
        return 0;
    }
    if (r.added > 0) reload();
    setError(r.errors.join('\n'));
    if (r.added == 0 && r.known == 0)
        setNotice(tr("No models found in %1").arg(folder.isEmpty() ? modelsDir() : folder));
    else
        setNotice(tr("%n new model(s) added", "", r.added) + (r.known > 0 ? QStringLiteral(" · ") +
                  tr("%n already in the library", "", r.known) : QString()));
    return r.added;
}

bool ModelListModel::acceptsUrl(const QUrl& url) const {
    if (!url.isLocalFile()) return false;
    const QFileInfo info(url.toLocalFile());
    return info.isDir() || info.suffix().compare("gguf", Qt::CaseInsensitive) == 0;
}

int ModelListModel::addUrls(const QList<QUrl>& urls) {
    int added = 0;
    QStringList errors;
    for (const QUrl& u : urls) {
        if (addUrl(u)) ++added;
        else if (!m_lastError.isEmpty()) errors << m_lastError;
    }
    setError(errors.join('\n'));
    if (added > 0) setNotice(tr("%n model(s) added", "", added));
    return added;
}

int ModelListModel::rowOfPath(const QString& path) const {
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].record.path == path) return i;
    return -1;
}

void ModelListModel::setNotice(const QString& notice) {
    if (notice == m_notice) return;
    m_notice = notice;
    emit noticeChanged();
}

void ModelListModel::clearError() { setError({}); }

void ModelListModel::openModelsFolder() const { QDesktopServices::openUrl(QUrl::fromLocalFile(modelsDir())); }

void ModelListModel::setError(const QString& error) {
    if (error == m_lastError) return;
    m_lastError = error;
    emit lastErrorChanged();
}

// A language switch: the engine's messages the rows show (readError, supportNote, fitReason) are worded again.
bool ModelListModel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == QCoreApplication::instance() && event->type() == QEvent::LanguageChange && !m_rows.isEmpty())
        emit dataChanged(index(0), index(int(m_rows.size()) - 1), {ReadErrorRole, SupportNoteRole, FitReasonRole});
    return QAbstractListModel::eventFilter(watched, event);
}

}  // namespace ft::ui

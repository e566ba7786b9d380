import Hummingbird

/// The progress page of a background job (``WebJobs``): a `<progress>` bar in a page that reloads
/// itself each second (`<meta http-equiv="refresh">`, no script), and the job's result once it ends.
extension HealthWebApp {
    func addJobRoutes(to router: Router<BasicRequestContext>) {
        router.get("/jobs/:id") { _, context in
            guard let id = context.parameters.get("id"), let job = jobs.progress(of: id) else {
                throw HTTPError(.notFound, message: "There is no such job; it may have ended long ago.")
            }
            let section = PageRenderer.Section.allCases.first { $0.href == job.origin } ?? .summary
            if let result = job.result { return pages.page(title: job.title, section: section, content: result, notice: job.notice) }
            let percent = job.total > 0 ? job.done * 100 / job.total : 0
            return pages.page(title: job.title, section: section,
                              content: pages.render("job", ["title": job.title, "done": job.done, "total": job.total, "percent": percent, "id": id]),
                              refresh: 1)
        }
    }
}

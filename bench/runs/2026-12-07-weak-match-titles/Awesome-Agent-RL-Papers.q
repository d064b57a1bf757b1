judged-en	reinforcement learning that teaches a language model when to issue web search queries in the middle of its reasoning
judged-en	training models to write and execute Python code while solving math problems, optimized with RL
judged-en	giving credit to individual steps or turns in long-horizon agent trajectories instead of only the final outcome
judged-en	learning from pairwise comparisons of whole multi-step dialogues or trajectories rather than single replies
judged-en	memory designs that let several cooperating LLM agents store and retrieve shared experience
judged-en	planning which APIs to chain by modelling how tools' inputs and outputs connect as a graph
judged-en	instruction-tuning open LLMs on expert interaction traces so they act well across many held-out environments
judged-en	attacks that implant hidden triggers or poison the retrieval store of LLM-based agents
judged-en	evaluating how well agents handle Kaggle-style model building or tasks built on real GitHub repositories
judged-en	online RL for agents that operate Android phones or tap through graphical interfaces
judged-en	reusing procedures distilled from earlier successful runs to guide an agent on new tasks
judged-zh	用强化学习训练模型在与用户的多轮对话中正确调用函数接口
judged-zh	利用熵或不确定性来引导智能体强化学习中的探索和策略梯度
judged-zh	自动搜索并优化由多个大模型调用组成的智能体工作流
judged-zh	多轮智能体强化学习的训练框架和实践经验总结
judged-zh	评估大模型智能体安全风险的基准测试
judged-zh	中文角色扮演对话模型的评测数据集
judged-zh	把视觉语言模型作为决策智能体并用强化学习进行微调
judged-zh	基于知识图谱自动合成难题来训练深度搜索智能体
judged-zh	面对上万个API时如何检索和调用合适的工具
judged-zh	让模型通过自主试用工具来改写和完善工具说明文档
judged-zh	利用失败轨迹或负样本改进智能体微调
judged-zh	用多轮强化学习让模型编写高性能GPU算子
judged-mixed	用 RL 训练 web agent 在真实网站上完成浏览任务
judged-mixed	R1 风格的 rule-based reward 训练 function calling 模型
judged-mixed	agent 自动生成和复用 MCP 工具
judged-mixed	软件工程 agent 的长上下文 multi-turn RL 训练
judged-mixed	tree search 结合强化学习提升 LLM 推理或定理证明
judged-mixed	GUI agent 在陌生 app 上的泛化能力
judged-en	RL so a reasoning model revises its answer over several attempts when it only receives a terse 'that is incorrect' signal
judged-en	two-level RL for language agents: a value function learned off-policy across conversation turns guides a token-by-token policy
judged-en	one foundation agent that plays commercial video games and runs desktop software using only screen images and keyboard/mouse output
judged-en	giving a frozen language model access to thousands of tools by learning one embedding per tool in its vocabulary
judged-en	choosing the right tool and filling its arguments for tools never seen in training by having the model ask itself discriminating questions
judged-en	answering questions about very long texts by building a memory that incrementally groups overlapping chunks into a hierarchy
judged-en	training collapse and gradient explosions in multi-turn RL where the model interleaves reasoning with code interpreter calls
judged-en	separating a search agent's high-level planning from the actual tool invocation, with only the planner optimized by reinforcement learning
judged-en	pretraining a vision-language model on egocentric videos annotated with step-by-step plans so robots can plan and act
judged-en	cheaper agent fine-tuning by supervising only the pivotal steps of expert trajectories instead of every token
judged-en	overview paper categorizing LLM agent frameworks by how they call external tools, make plans, and improve from critiques
judged-en	picking the best next utterance from candidates in a retrieval-based chatbot by injecting commonsense knowledge into a pretrained model
judged-en	having agents emit runnable Python programs as their actions rather than JSON-formatted tool calls
judged-en	guided Monte Carlo tree search with self-critique and off-policy DPO for an agent that books restaurants on real websites
judged-en	gradually increasing the allowed number of interaction turns during agent RL training to balance exploration and stability
judged-zh	把冗长的思维链拆分成多轮简短回答，以减少推理 token 数和首个答案的延迟
judged-zh	多轮谈判中让大模型智能体动态调整情绪表达以争取更好的谈判结果
judged-zh	能在视频多轮对话中理解用户所指的物体并把它分割出来的多模态大模型
judged-zh	让多个大模型协作改写并评估指令数据，自动提升指令微调数据的质量
judged-zh	把功能相似的API聚成工具簇，某个工具调用失败时在簇内切换并重新规划
judged-zh	构建包含工具调用、并会向用户追问缺失参数的多轮对话训练数据
judged-zh	不更新模型参数，只靠语言形式的自我反思和记忆让智能体从失败中吸取教训
judged-zh	自动合成多模态工具调用轨迹数据，用来微调视觉语言模型担任工具调度器
judged-zh	让大模型智能体学会在没把握时向人类专家求助，并用强化学习端到端训练，例如电商商品问答
judged-zh	评测大模型能否生成带依赖关系的图结构工作流
judged-mixed	评测 agent 通过 MCP server 调用真实工具能力的 benchmark
judged-mixed	multi-turn agent RL 中 reward 方差塌缩、reasoning 退化成重复模板的问题分析
judged-mixed	LLM agent 的 memory 分成 episodic、semantic、procedural 等多种类型，分别由不同 agent 管理
judged-mixed	把 memory 以 latent token 形式生成并插入推理过程的 self-evolving agent
judged-mixed	不需要训练、用标准化工具描述加 planner 和 executor 做复杂推理的通用 agent framework
judged-mixed	候选 tool 都不合适时让 LLM 选择不调用，并对 tool 候选做二次排序
judged-mixed	苹果生态中 app 自动化流程对应的真实 API 调用 benchmark
judged-mixed	human-AI 协作写前端/后端代码时，用训练时才可见的额外信息训练 critic 的 multi-turn RL
judged-mixed	agent tuning 数据中把格式遵循和推理能力解耦，并用负样本减少 hallucination
judged-mixed	对多步 tool use 中每一次调用做 step-level reward shaping，再用 policy gradient 优化
off	protein folding with diffusion models
off	predicting stock prices from financial news sentiment
off	image segmentation of brain MRI scans
off	speech recognition for low-resource languages
off	graph neural networks for molecule property prediction
off	forecasting wildfire spread from satellite images
off	learned cost models for database query optimization
off	neural image compression codecs
off	music genre classification from audio
off	detecting traffic signs for autonomous driving
off	recommender systems for e-commerce click-through prediction
off	knowledge distillation for compressing BERT
off	蛋白质结构预测
off	股票价格预测
off	医学图像分割
off	低资源语言的语音识别
off	分子性质预测的图神经网络
off	卫星图像中的森林火灾预测
off	数据库查询优化
off	神经图像压缩
off	音乐流派分类
off	电商推荐系统的点击率预估
off	用 diffusion model 做蛋白质折叠
off	基于 transformer 的股票预测
off	MRI 图像分割方法
off	graph neural network 预测分子性质
off	speech recognition 低资源语言
off	电商 recommender system 点击率
off	estimating crop yields from weather and soil data
off	detecting credit card fraud in transaction streams
off	predicting earthquake aftershocks from seismograph records
off	identifying bird species from recordings of their songs
off	sentiment analysis of product reviews
off	handwritten digit recognition with convolutional networks
off	spam filtering for email
off	estimating a person's age from a face photo
off	low-latency video compression for video conferencing
off	correcting systematic errors of numerical weather forecasts
off	农作物产量预测
off	信用卡欺诈检测
off	地震余震预测
off	鸟类鸣声识别
off	手写数字识别
off	垃圾邮件过滤
off	人脸年龄估计
off	商品评论情感分析
off	视频会议的低延迟视频压缩
off	数值天气预报的误差订正
off	用 CNN 做手写数字识别
off	credit card 交易的欺诈检测方法
off	基于 LSTM 的农作物产量预测
off	email spam 过滤
off	bird song 鸟类识别
off	face photo 人脸年龄估计
off	seismic 数据的地震余震预测
off	product review 情感分析
off	video conferencing 的低延迟压缩
off	weather forecast 数值模式订正
